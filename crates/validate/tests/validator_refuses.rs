//! Refused proof lines, by bypass class: every line quoted in issue 12,
//! then a corpus of our own per class (it grows with every bypass found by
//! attacking the validator; see `attack_corpus.rs` for the finds). Each
//! line names the rule it must trip (the verdict may list more).

use ploy_validate::{ProofVerdict, validate};

mod support;

/// Asserts every line is refused with (at least) its rule.
fn all_refused(cases: &[(&str, &str)]) {
    support::all_refused(cases.iter().map(|(line, rule)| (*line, *rule, "")));
}

// proves: PROOF-2, PROOF-3, PROOF-4, PROOF-5 (every line the issue quotes)
#[test]
fn every_line_of_the_issue_is_refused_with_its_rule() {
    all_refused(&[
        // Parsed as bash, run by sh (dash).
        (
            "grep -q x file.txt &>/dev/null rm -rf target/debug",
            "PROOF-3",
        ),
        ("time -f x sh -c 'id'", "PROOF-3"),
        // GNU unique-prefix abbreviations.
        ("sed --expr='1e id' x", "PROOF-2"),
        ("sed --in s/a/b/ f", "PROOF-2"),
        ("git grep --open=id -e x", "PROOF-2"),
        ("make --ev='all: ; id'", "PROOF-4"),
        ("git diff --ext", "PROOF-2"),
        // Glued short options.
        ("grep -eroot /etc/passwd", "PROOF-3"),
        ("make -C..", "PROOF-3"),
        ("tar -tvf../a.tar", "PROOF-3"),
        ("awk -fprog.awk", "PROOF-4"),
        // Option values read as subcommands.
        ("cargo --color never clean", "PROOF-2"),
        ("npm --tag test install lodash", "PROOF-2"),
        ("pip --log list install requests", "PROOF-2"),
        // Operands taken for patterns.
        ("grep -T root /etc/passwd", "PROOF-3"),
        ("grep -r token ../x", "PROOF-3"),
        // Launchers.
        ("stdbuf --output L rm x", "PROOF-2"),
        ("setarch x86_64 rm -rf x", "PROOF-2"),
        ("ifne rm x", "PROOF-2"),
        ("rlwrap rm x", "PROOF-2"),
        ("xvfb-run rm x", "PROOF-2"),
        ("m4 x", "PROOF-2"),
        ("run-parts .", "PROOF-2"),
        // Code from stdin.
        ("echo 'all: ; id' | make -f -", "PROOF-4"),
        ("cat x | python3 --check-hash-based-pycs default", "PROOF-4"),
        ("node --title x <<< 'require(1)'", "PROOF-3"),
        // Inline code assembled from strings.
        (
            "python3 -c 'import importlib; m=importlib.import_module(\"os\"); vars(m).get(\"sys\"+\"tem\")(\"id\")'",
            "PROOF-4",
        ),
        (
            "node -e 'const r=require; r(\"child_pro\"+\"cess\").execSync(\"id\")'",
            "PROOF-4",
        ),
        ("perl -e 'print readpipe(\"id\")'", "PROOF-4"),
        // PROOF-5 on the plan.
        ("true", "PROOF-5"),
        ("ls", "PROOF-5"),
        ("echo", "PROOF-5"),
        ("test x = x", "PROOF-5"),
        ("test -f src/main.rs -o x = x", "PROOF-5"),
        ("cargo test || true", "PROOF-5"),
    ]);
}

// proves: PROOF-3 (constructs whose meaning differs between bash, sh and the plan runner)
#[test]
fn class_bash_and_sh_read_differently() {
    all_refused(&[
        ("grep -q x f &> /dev/null", "PROOF-3"),
        ("grep -q x f &>>/dev/null", "PROOF-3"),
        ("grep -q x f >& /dev/null", "PROOF-3"),
        ("grep -q x f >&/dev/null", "PROOF-3"),
        ("grep x f |& grep -q y", "PROOF-3"),
        ("time grep -q x f", "PROOF-3"),
        ("time -p cargo test", "PROOF-3"),
        ("[[ -f x ]]", "PROOF-3"),
        ("[[ -f x ]] && cargo test", "PROOF-3"),
        ("grep -q $'\\x41' f", "PROOF-3"),
        ("grep -q $\"x\" f", "PROOF-3"),
        ("(( 1 + 1 )) && cargo test", "PROOF-3"),
        ("function f { cargo test; } && f", "PROOF-2"),
        ("f() { cargo test; } && f", "PROOF-2"),
        ("coproc cargo test", "PROOF-3"),
        ("select x in a; do cargo test; done", "PROOF-1"),
        ("cat {a,b}.txt", "PROOF-3"),
        ("cat a{1..3}", "PROOF-3"),
        ("{ cargo test; }", "PROOF-3"),
        ("(cargo test)", "PROOF-3"),
        ("diff <(ls) <(ls src)", "PROOF-3"),
        ("grep -q x <<< x", "PROOF-3"),
        ("grep -q x <<EOF", "PROOF-1"),
        ("grep -q x < f", "PROOF-3"),
        ("! ! grep -q x f", "PROOF-5"),
        ("grep -q x f | ! grep -q y", "PROOF-1"),
        ("cargo test; make check", "PROOF-5"),
        ("cargo test & make check", "PROOF-3"),
        ("cargo test &", "PROOF-3"),
        ("PAGER=cat git log", "PROOF-2"),
        ("LC_ALL=C grep -q x f", "PROOF-2"),
        ("grep -q x f 2>&1 >/dev/null", "PROOF-3"),
        ("grep -q x f >&2", "PROOF-3"),
        ("grep -q x f 3>/dev/null", "PROOF-3"),
        ("grep -q x f > /dev/null2", "PROOF-3"),
        ("grep -q x f >> /dev/null", "PROOF-3"),
        ("grep -q x f >| /dev/null", "PROOF-3"),
        ("grep -q x f # comment", "PROOF-3"),
        ("cat @(a|b)", "PROOF-3"),
        ("cat **/x", "PROOF-3"),
        ("cat [ab]", "PROOF-3"),
        ("grep -q \"$x\" f", "PROOF-3"),
        ("grep -q \"`id`\" f", "PROOF-3"),
        ("grep -q \"a\\b\" f", "PROOF-3"),
        ("grep -q x ~/f", "PROOF-3"),
        ("grep -q x f\\\n", "PROOF-1"),
        ("grep -q é f", "PROOF-3"),
        ("if grep -q x f; then cargo test; fi", "PROOF-3"),
        ("for f in a; do cargo test; done", "PROOF-3"),
        ("case x in x) cargo test;; esac", "PROOF-3"),
        ("'time' cargo test", "PROOF-2"),
        ("source ./env.sh && cargo test", "PROOF-2"),
        (". ./env.sh && cargo test", "PROOF-2"),
        ("exec cargo test", "PROOF-2"),
        ("eval 'cargo test'", "PROOF-2"),
    ]);
}

// proves: PROOF-2, PROOF-4 (GNU unique-prefix abbreviations resolve as the real programs do)
#[test]
fn class_long_option_abbreviations() {
    all_refused(&[
        ("make --eva='x: ; id' x", "PROOF-4"),
        ("make --e='x: ; id' x", "PROOF-2"),
        ("make --fi=- x", "PROOF-4"),
        ("make --makef=- x", "PROOF-4"),
        ("make --dir=.. x", "PROOF-3"),
        ("make --direc=src x", "PROOF-2"),
        ("make --inc=/usr x", "PROOF-3"),
        ("make --env x", "PROOF-2"),
        ("make --dry check", "PROOF-5"),
        ("make --rec check", "PROOF-5"),
        ("make --ignore-e check", "PROOF-5"),
        ("make --j=4 check", "PROOF-2"),
        ("make --to check", "PROOF-2"),
        ("grep --fil=/etc/passwd x f", "PROOF-3"),
        ("grep --file=../x x f", "PROOF-3"),
        ("grep --exclude-f=/etc/x -r x .", "PROOF-3"),
        ("grep --co x f", "PROOF-2"),
        ("grep --no x f", "PROOF-2"),
        ("grep --unix x f", "PROOF-2"),
        ("diff --pag a b", "PROOF-2"),
        ("diff --pa a b", "PROOF-2"),
        ("diff --to=/etc/passwd a", "PROOF-2"),
        ("diff --exclude-f=/etc/x -r a b", "PROOF-3"),
        ("ls --hyp src", "PROOF-2"),
        ("tail --fol f", "PROOF-2"),
        ("tail --pi=1 f", "PROOF-2"),
        ("tail --ret f", "PROOF-2"),
        ("wc --files0=/etc/x", "PROOF-3"),
        ("wc --fi=x", "PROOF-3"),
        ("head --pre f", "PROOF-2"),
        ("git diff --ext-d", "PROOF-2"),
        ("git diff --text", "PROOF-5"),
        ("git diff --textc --quiet", "PROOF-2"),
        ("git diff --out=x --quiet", "PROOF-2"),
        ("git diff --no-in a b", "PROOF-2"),
        ("git log --show-sig", "PROOF-2"),
        ("git grep --open-files=id -e x", "PROOF-2"),
        ("git status --porc", "PROOF-2"),
        ("cargo test --manifest=x", "PROOF-2"),
        ("cargo test --target-d=/tmp", "PROOF-2"),
        ("pytest --junit=x", "PROOF-2"),
        ("pytest --co", "PROOF-5"),
        ("rg --pr=./evil x src", "PROOF-2"),
    ]);
}

// proves: PROOF-2, PROOF-3, PROOF-4 (glued short options: a value takes the rest of the cluster)
#[test]
fn class_glued_short_options() {
    all_refused(&[
        ("grep -f/etc/passwd x f", "PROOF-3"),
        ("grep -f../x x f", "PROOF-3"),
        ("grep -qrf../x y", "PROOF-3"),
        ("grep -qe x /etc/passwd", "PROOF-3"),
        ("grep -5 x f", "PROOF-2"),
        ("grep -qX egrep x f", "PROOF-2"),
        ("make -f- x", "PROOF-4"),
        ("make -sf- x", "PROOF-4"),
        ("make -I/usr x", "PROOF-3"),
        ("make -E'x: ; id' x", "PROOF-4"),
        ("make -kC.. x", "PROOF-3"),
        ("make -nq x", "PROOF-5"),
        ("diff -X/etc/x -r a b", "PROOF-3"),
        ("diff -lq a b", "PROOF-2"),
        ("diff -qr5 a b", "PROOF-2"),
        ("ls -w1 /", "PROOF-3"),
        ("cat -A /etc/passwd", "PROOF-3"),
        ("head -n1 /etc/passwd", "PROOF-3"),
        ("tail -n1 ../x", "PROOF-3"),
        ("tail -fn1 f", "PROOF-2"),
        ("head -5 f", "PROOF-2"),
        ("tail +5 f", "PROOF-2"),
        ("cargo -Zscript x.rs", "PROOF-2"),
        ("cargo test -Zbuild-std", "PROOF-2"),
        ("cargo -C.. test", "PROOF-3"),
        ("git -C.. status", "PROOF-3"),
        ("git -ccore.pager=sh log", "PROOF-2"),
        ("find -L . -name x", "PROOF-3"),
        ("find -D exec . -name x", "PROOF-2"),
        ("jq -L/x . f.json", "PROOF-3"),
        ("jq -rf x.jq f.json", "PROOF-2"),
        ("jq -nr 1", "PROOF-5"),
        ("rg -f/etc/passwd x src", "PROOF-3"),
        ("rg -zq x src", "PROOF-2"),
        ("pytest -pevil", "PROOF-2"),
        ("pytest -c/etc/x", "PROOF-3"),
        ("pytest -k=x", "PROOF-2"),
        ("git grep -O id x", "PROOF-2"),
        ("git grep -Oid x", "PROOF-2"),
        ("git log -n=3", "PROOF-2"),
    ]);
}

// proves: PROOF-2 (option values are not read as subcommands, and the reverse)
#[test]
fn class_values_read_as_subcommands() {
    all_refused(&[
        ("cargo --color never clean", "PROOF-2"),
        ("cargo --color=never install x", "PROOF-2"),
        ("cargo -q --locked publish", "PROOF-2"),
        ("cargo +nightly --config x test", "PROOF-2"),
        ("cargo +nightly install x", "PROOF-2"),
        ("cargo --frozen run", "PROOF-2"),
        ("cargo build", "PROOF-2"),
        ("cargo t", "PROOF-2"),
        ("cargo fmt", "PROOF-2"),
        ("cargo fmt -- --emit files", "PROOF-2"),
        ("cargo clippy --fix", "PROOF-2"),
        ("cargo test -- --logfile out.txt", "PROOF-2"),
        ("cargo test -- --list", "PROOF-5"),
        ("cargo check -- -C link-arg=x", "PROOF-2"),
        ("cargo clippy -- -C linker=./evil", "PROOF-2"),
        ("npm --tag test install lodash", "PROOF-2"),
        ("npm --prefix x test", "PROOF-2"),
        ("npm test --script-shell=./evil", "PROOF-2"),
        ("npm run-script lint", "PROOF-2"),
        ("npm exec evil", "PROOF-2"),
        ("npm x evil", "PROOF-2"),
        ("npm ci", "PROOF-2"),
        ("npm t", "PROOF-2"),
        ("yarn", "PROOF-2"),
        ("yarn add evil", "PROOF-2"),
        ("yarn --cwd .. test", "PROOF-2"),
        ("pnpm --dir .. test", "PROOF-2"),
        ("pnpm dlx evil", "PROOF-2"),
        ("pip --log list install requests", "PROOF-2"),
        ("python3 -m pip install x", "PROOF-2"),
        ("python3 -W ignore -m pytest", "PROOF-2"),
        ("python3 -m http.server", "PROOF-2"),
        ("git --git-dir x log", "PROOF-3"),
        ("git -c x=y push", "PROOF-2"),
        ("git --exec-path=. status", "PROOF-2"),
        ("git push", "PROOF-2"),
        ("git fetch origin", "PROOF-2"),
        ("git config core.pager 'sh -c id'", "PROOF-2"),
        ("git clean -fdx", "PROOF-2"),
        ("git stash", "PROOF-2"),
        ("git submodule update --init", "PROOF-2"),
        ("go -C .. test ./...", "PROOF-2"),
        ("go run .", "PROOF-2"),
        ("go generate ./...", "PROOF-2"),
        ("go install evil@latest", "PROOF-2"),
        ("go test -exec ./evil ./...", "PROOF-2"),
        ("go test -toolexec=./evil ./...", "PROOF-2"),
        ("go test ./... -args -x", "PROOF-2"),
        ("go test example.com/x", "PROOF-2"),
        ("go vet -vettool=./evil ./...", "PROOF-2"),
    ]);
}

// proves: PROOF-3 (operands the program opens are paths, and are checked; patterns are not taken for paths)
#[test]
fn class_patterns_and_paths() {
    all_refused(&[
        ("grep -T root /etc/passwd", "PROOF-3"),
        ("grep -e x /etc/passwd", "PROOF-3"),
        ("grep -q x -- /etc/passwd", "PROOF-3"),
        ("grep -F /etc/passwd /etc/passwd", "PROOF-3"),
        ("grep -q x src /etc/shadow", "PROOF-3"),
        ("grep -rq x src ../", "PROOF-3"),
        ("rg -q x /etc", "PROOF-3"),
        ("rg -q -e x -- ../x", "PROOF-3"),
        ("git grep -q x -- ../x", "PROOF-3"),
        ("git show HEAD:../x", "PROOF-3"),
        ("git log -- :/x", "PROOF-3"),
        ("git diff --quiet ':(top)x'", "PROOF-3"),
        ("git diff --quiet -- /etc/passwd", "PROOF-3"),
        ("find / -name x", "PROOF-3"),
        ("find . -newer /etc/passwd", "PROOF-3"),
        ("find .. -name x", "PROOF-3"),
        ("find src -samefile ../x", "PROOF-3"),
        ("test -f /etc/passwd", "PROOF-3"),
        ("[ -d '~/x' ]", "PROOF-3"),
        ("test /etc/passwd -nt x", "PROOF-3"),
        ("diff a /etc/passwd", "PROOF-3"),
        ("cmp a ../b", "PROOF-3"),
        ("jq . /etc/x.json", "PROOF-3"),
        ("jq --rawfile a /etc/passwd . f.json", "PROOF-3"),
        ("jq --slurpfile a ../x . f.json", "PROOF-3"),
        ("yq . ../x.yaml", "PROOF-3"),
        ("wc -l /etc/passwd", "PROOF-3"),
        ("head '~/.ssh/id_rsa'", "PROOF-3"),
        ("cat '~/x'", "PROOF-3"),
        ("ls /", "PROOF-3"),
        ("ls -d ..", "PROOF-3"),
        ("pytest /tmp/x", "PROOF-3"),
        ("pytest tests/../../x", "PROOF-3"),
        ("pytest '@args.txt'", "PROOF-3"),
        ("python3 -m unittest discover -s /tmp", "PROOF-3"),
        ("make ../x", "PROOF-3"),
        ("make x --out=/tmp/x", "PROOF-2"),
        ("cargo test --manifest-path /x/Cargo.toml", "PROOF-3"),
        ("cargo test --manifest-path=../x/Cargo.toml", "PROOF-3"),
        ("cargo test -- --skip=/etc", "PROOF-3"),
        ("go test ../...", "PROOF-2"),
        ("go test ./../x", "PROOF-3"),
        ("./scripts/../../x.sh", "PROOF-3"),
        ("scripts/x.sh /etc/passwd", "PROOF-3"),
        ("./x.sh --out=/tmp/x", "PROOF-3"),
        ("./x.sh -I/usr", "PROOF-3"),
        ("./x.sh a:/etc", "PROOF-3"),
        ("/bin/rm -rf x", "PROOF-2"),
        ("npm test -- /etc/x", "PROOF-3"),
        ("npm run lint -- --config=../x", "PROOF-3"),
    ]);
}

// proves: PROOF-2 (launchers: programs that start the program named in their arguments)
#[test]
fn class_launchers() {
    all_refused(&[
        ("stdbuf -oL rm x", "PROOF-2"),
        ("env rm -rf x", "PROOF-2"),
        ("env -i cargo test", "PROOF-2"),
        ("timeout 5 cargo test", "PROOF-2"),
        ("nice -n 5 cargo test", "PROOF-2"),
        ("nohup cargo test", "PROOF-2"),
        ("setsid cargo test", "PROOF-2"),
        ("xargs rm", "PROOF-2"),
        ("ls src | xargs rm -rf", "PROOF-2"),
        ("parallel rm ::: x", "PROOF-2"),
        ("command cargo test", "PROOF-2"),
        ("builtin eval x", "PROOF-2"),
        ("sudo cargo test", "PROOF-2"),
        ("doas make check", "PROOF-2"),
        ("su -c 'cargo test'", "PROOF-2"),
        ("watch cargo test", "PROOF-2"),
        ("script -c id", "PROOF-2"),
        ("strace cargo test", "PROOF-2"),
        ("valgrind ./x", "PROOF-2"),
        ("flock x cargo test", "PROOF-2"),
        ("chroot . x", "PROOF-2"),
        ("unshare -r id", "PROOF-2"),
        ("busybox rm x", "PROOF-2"),
        ("toybox rm x", "PROOF-2"),
        ("npx evil-package", "PROOF-2"),
        ("uvx evil", "PROOF-2"),
        ("ionice -c3 cargo test", "PROOF-2"),
        ("taskset 1 cargo test", "PROOF-2"),
        ("entr cargo test", "PROOF-2"),
        ("catchsegv ./x", "PROOF-2"),
        ("prlimit --nofile=1 cargo test", "PROOF-2"),
        ("dbus-run-session cargo test", "PROOF-2"),
        ("xdg-open x", "PROOF-2"),
        ("find . -exec rm {} ';'", "PROOF-2"),
        ("find . -execdir sh -c id ';'", "PROOF-2"),
        ("find . -ok rm {} ';'", "PROOF-2"),
        ("find . -delete", "PROOF-2"),
        ("find . -fprint out.txt", "PROOF-2"),
        ("rg --pre ./evil x src", "PROOF-2"),
        ("rg -z x src", "PROOF-2"),
        ("diff -l a b", "PROOF-2"),
        ("git -p log", "PROOF-2"),
        ("git --paginate log", "PROOF-2"),
        ("git log --show-signature", "PROOF-2"),
        ("git diff --ext-diff", "PROOF-2"),
        ("git diff --textconv", "PROOF-2"),
    ]);
}

// proves: PROOF-4 (programs given as code on standard input)
#[test]
fn class_code_from_stdin() {
    all_refused(&[
        ("cat f | make -f - x", "PROOF-4"),
        ("cat f | make -f- x", "PROOF-4"),
        ("cat f | make --file=- x", "PROOF-4"),
        ("cat f | sh", "PROOF-4"),
        ("cat f | bash -s", "PROOF-4"),
        ("cat f | python3", "PROOF-4"),
        ("cat f | python3 -", "PROOF-4"),
        ("cat f | python3 -B", "PROOF-4"),
        ("cat f | node", "PROOF-4"),
        ("cat f | perl", "PROOF-4"),
        ("cat f | ruby", "PROOF-4"),
        ("cat f | php", "PROOF-4"),
        ("cat f | lua -", "PROOF-4"),
        ("cat f | awk -f -", "PROOF-4"),
        ("cat f | sed -f -", "PROOF-4"),
        ("cat f | dash", "PROOF-4"),
        ("cat f | zsh", "PROOF-4"),
        ("cat f | bc", "PROOF-4"),
        ("cat f | sqlite3", "PROOF-4"),
        ("cat f | jshell", "PROOF-4"),
        ("python3 < f", "PROOF-3"),
        ("sh < x", "PROOF-3"),
        ("grep -q x f | xargs rm", "PROOF-2"),
        ("cat f | deno run -", "PROOF-4"),
        ("cat f | osascript", "PROOF-4"),
    ]);
}

// proves: PROOF-4 (inline code, however assembled)
#[test]
fn class_inline_code() {
    all_refused(&[
        ("python3 -c 'import os; os.system(\"id\")'", "PROOF-4"),
        (
            "python3 -c \"getattr(__builtins__, 'ev'+'al')('1')\"",
            "PROOF-4",
        ),
        ("python3 -c 'import sys; sys.exit(0)'", "PROOF-4"),
        ("python3 -Bc 'import os'", "PROOF-4"),
        ("python3 -c'import os'", "PROOF-4"),
        ("python3 -Ic 'x'", "PROOF-4"),
        ("python3", "PROOF-4"),
        ("python -c 'print(1)'", "PROOF-4"),
        ("python3.12 -c 'print(1)'", "PROOF-4"),
        ("node -e \"require('child_' + 'process')\"", "PROOF-4"),
        ("node -p 'process.exit(0)'", "PROOF-4"),
        ("node --eval=\"x\"", "PROOF-4"),
        ("node", "PROOF-4"),
        ("nodejs -e x", "PROOF-4"),
        ("deno eval \"Deno.run({cmd: ['id']})\"", "PROOF-4"),
        ("bun -e x", "PROOF-4"),
        ("perl -e 'system(\"id\")'", "PROOF-4"),
        ("perl -E 'exec \"id\"'", "PROOF-4"),
        ("perl -ne 'print if /x/' f", "PROOF-4"),
        ("perl -MIO::Socket -e 1", "PROOF-4"),
        ("ruby -e 'system(\"id\")'", "PROOF-4"),
        ("php -r 'system(\"id\");'", "PROOF-4"),
        ("lua -e 'os.execute(\"id\")'", "PROOF-4"),
        ("awk 'BEGIN { system(\"id\") }'", "PROOF-4"),
        ("awk '{ print | \"sh\" }' f", "PROOF-4"),
        ("gawk '@load \"filefuncs\"; BEGIN { }'", "PROOF-4"),
        ("awk -f prog.awk f", "PROOF-4"),
        ("sed -n '1e id' f", "PROOF-4"),
        ("sed 's/x/y/e' f", "PROOF-4"),
        ("sh -c 'rm -rf x'", "PROOF-4"),
        ("bash -c 'cargo test'", "PROOF-4"),
        ("dash -ec 'rm x'", "PROOF-4"),
        ("busybox sh -c 'rm x'", "PROOF-2"),
        ("dc -e '!id'", "PROOF-4"),
        ("make --eval='x: ; id' x", "PROOF-4"),
        ("make -E 'x: ; id' x", "PROOF-4"),
        ("jq 'import \"x\" as x; .' f.json", "PROOF-4"),
        ("jq 'include \"../x\"; .' f.json", "PROOF-4"),
        ("jq 'modulemeta' f.json", "PROOF-4"),
        ("yq 'load(\"/etc/passwd\")' f.yaml", "PROOF-4"),
        ("yq 'strenv(HOME)' f.yaml", "PROOF-4"),
        ("yq 'env(X)' f.yaml", "PROOF-4"),
        ("yq eval '.a' f.yaml", "PROOF-2"),
        ("yq -i '.a = 1' f.yaml", "PROOF-2"),
    ]);
}

// proves: PROOF-5 (lines that verify nothing)
#[test]
fn class_verifies_nothing() {
    all_refused(&[
        (":", "PROOF-5"),
        ("false", "PROOF-5"),
        ("echo ok", "PROOF-5"),
        ("printf 'ok\\n'", "PROOF-5"),
        ("exit 0", "PROOF-5"),
        ("sleep 1", "PROOF-5"),
        ("pwd", "PROOF-5"),
        ("! false", "PROOF-5"),
        ("true && echo done", "PROOF-5"),
        ("cargo test || echo failed", "PROOF-5"),
        ("cargo test | true", "PROOF-5"),
        ("", "PROOF-5"),
        ("   ", "PROOF-5"),
        ("# cargo test", "PROOF-5"),
        ("test", "PROOF-5"),
        ("[ ]", "PROOF-5"),
        ("test x", "PROOF-5"),
        ("test -n x", "PROOF-5"),
        ("test -z ''", "PROOF-5"),
        ("[ 1 = 1 ]", "PROOF-5"),
        ("[ a != b ]", "PROOF-5"),
        ("test 1 -eq 01", "PROOF-5"),
        ("test '' = ''", "PROOF-5"),
        ("test -e .", "PROOF-5"),
        ("[ -d ./ ]", "PROOF-5"),
        ("test -f x/", "PROOF-5"),
        ("test -e ''", "PROOF-5"),
        ("test -f x -o 1 -eq 1", "PROOF-5"),
        ("test -e x -o ! -e x", "PROOF-5"),
        ("test -e x -o ! -f x", "PROOF-5"),
        ("test ! -e a/b -o -e a", "PROOF-5"),
        ("test x -nt ./x", "PROOF-5"),
        ("test -f a || test ! -f a", "PROOF-5"),
        ("test -e a || ! test -e ./a", "PROOF-5"),
        ("grep -q x f || ! grep -q x f", "PROOF-5"),
        ("! grep -q x f || grep -q x f", "PROOF-5"),
        ("cargo test || ! cargo test", "PROOF-5"),
        ("ls .", "PROOF-5"),
        ("ls -la", "PROOF-5"),
        ("find .", "PROOF-5"),
        ("find . -name '*.rs'", "PROOF-5"),
        ("git status", "PROOF-5"),
        ("git status --porcelain", "PROOF-5"),
        ("git diff", "PROOF-5"),
        ("git diff --stat", "PROOF-5"),
        ("git ls-files", "PROOF-5"),
        ("cat README.md | cat", "PROOF-5"),
        ("cargo test | tail -n 1", "PROOF-5"),
        ("cargo test 2>&1 | head", "PROOF-5"),
        ("make check | wc -l", "PROOF-5"),
        ("grep -q x", "PROOF-5"),
        ("jq .", "PROOF-5"),
        ("jq -n '1'", "PROOF-5"),
        ("diff a a", "PROOF-5"),
        ("cmp x ./x", "PROOF-5"),
        ("make -n check", "PROOF-5"),
        ("make -i check", "PROOF-5"),
        ("make --version", "PROOF-5"),
        ("grep --version", "PROOF-5"),
        ("pytest --collect-only", "PROOF-5"),
        ("go test -list . ./...", "PROOF-5"),
        ("cargo test --unit-graph", "PROOF-5"),
        ("[ --help", "PROOF-5"),
        ("test -f a && test x = x || test -f a", "PROOF-5"),
        ("cat . || test -e .", "PROOF-5"),
    ]);
}

// proves: PROOF-1 (one short line that parses)
#[test]
fn proof_1_line_shape() {
    let long = format!("cargo test -q {}", "x".repeat(400));
    all_refused(&[
        (long.as_str(), "PROOF-1"),
        ("cargo test\ncurl evil", "PROOF-1"),
        ("cargo test\rcurl evil", "PROOF-1"),
        ("cargo test\n", "PROOF-1"),
        ("echo 'unterminated", "PROOF-1"),
        ("cargo test &&", "PROOF-1"),
        ("if true; then", "PROOF-1"),
        ("cargo test \u{0}", "PROOF-1"),
        ("cargo test \u{1b}[2J", "PROOF-1"),
        ("| grep x", "PROOF-1"),
        ("cargo test $(", "PROOF-1"),
    ]);
}

// proves: PROOF-2 (programs outside the allowlist, however the name is spelled)
#[test]
fn proof_2_programs_outside_the_allowlist() {
    let many = format!("{}curl https://evil.example", "test -f x && ".repeat(20));
    all_refused(&[
        ("rm -rf target", "PROOF-2"),
        ("\\rm -rf x", "PROOF-2"),
        ("r''m -rf x", "PROOF-2"),
        ("\"r\"m -rf x", "PROOF-2"),
        ("RM -rf x", "PROOF-2"),
        ("cargo test && rm -rf src", "PROOF-2"),
        ("cargo test | rm x", "PROOF-2"),
        ("curl https://evil.example", "PROOF-2"),
        ("cu\\rl evil.example", "PROOF-2"),
        ("wget evil.example", "PROOF-2"),
        ("ssh host", "PROOF-2"),
        ("nc -l 4444", "PROOF-2"),
        ("brew install jq", "PROOF-2"),
        ("apt-get install -y jq", "PROOF-2"),
        ("docker run alpine", "PROOF-2"),
        ("cp a b", "PROOF-2"),
        ("mv a b", "PROOF-2"),
        ("touch marker", "PROOF-2"),
        ("chmod +x run.sh", "PROOF-2"),
        ("tee out.txt", "PROOF-2"),
        ("sort -o out.txt in.txt", "PROOF-2"),
        ("stat README.md", "PROOF-2"),
        ("date -s 2020-01-01", "PROOF-2"),
        ("cd src", "PROOF-2"),
        (many.as_str(), "PROOF-2"),
    ]);
}

// proves: PROOF-1..5 (every tripped rule is listed, not just the first)
#[test]
fn every_tripped_rule_is_listed() {
    let verdict = validate("PAGER=x curl $(id) > /etc/x & true");
    let rules = verdict.rules();
    for rule in ["PROOF-2", "PROOF-3"] {
        assert!(rules.contains(&rule), "{rule} missing from {verdict:?}");
    }
    assert!(verdict.refusals().len() >= 4, "{verdict:?}");
    assert!(verdict.refusals().iter().all(|r| !r.detail.is_empty()));
}

// proves: PROOF-2 (an unknown program or option is refused with the nearest allowed form)
#[test]
fn refusals_name_the_nearest_allowed_form() {
    let detail = |line: &str| -> String {
        validate(line)
            .refusals()
            .iter()
            .map(|r| r.detail.clone())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        detail("grpe -q x f").contains("`grep`"),
        "{}",
        detail("grpe -q x f")
    );
    assert!(
        detail("grep --quite x f").contains("--quiet"),
        "{}",
        detail("grep --quite x f")
    );
    assert!(detail("cargo build").contains("cargo check"));
    assert!(detail("python3 tests/check.py").contains("python3 -m pytest"));
    assert!(detail("head -5 f").contains("-n 5"));
    assert!(detail("git diff").contains("--quiet"));
    assert!(detail("[[ -f x ]]").contains("test"));
    assert!(detail("grep -q x f &>/dev/null").contains(">/dev/null 2>&1"));
}

// proves: PROOF-2 (the serialised verdict carries rule IDs and details, or the plan)
#[test]
fn verdict_serialises_with_rules_or_plan() {
    let json = serde_json::to_value(validate("rm -rf x")).unwrap();
    assert_eq!(json["verdict"], "refused");
    assert_eq!(json["refusals"][0]["rule"], "PROOF-2");
    assert!(
        json["refusals"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("rm")
    );
    let json = serde_json::to_value(validate("cargo test")).unwrap();
    assert_eq!(json["verdict"], "accepted");
    assert_eq!(json["plan"]["first"]["commands"][0]["argv"][0], "cargo");
    assert!(matches!(
        validate("cargo test"),
        ProofVerdict::Accepted { .. }
    ));
}
