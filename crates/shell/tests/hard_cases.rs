//! The hard command lines of issue 2, each with the summary it must produce.
//! These summaries feed PERM-1/PERM-3 (policy) and PROOF-1..5 (validator): a
//! wrong summary here is a bypass there.

use ploy_shell::{CommandLine, RedirectOp, Separator, analyze};

/// Static program names of every command (nested included), in order.
fn names(line: &CommandLine) -> Vec<Option<&str>> {
    line.commands.iter().map(|c| c.program_name()).collect()
}

fn parsed(text: &str) -> CommandLine {
    let line = analyze(text);
    assert!(
        line.parse_error.is_none(),
        "{text:?} should parse: {:?}",
        line.parse_error
    );
    line
}

fn nested_names(line: &CommandLine) -> Vec<&str> {
    line.commands
        .iter()
        .filter(|c| c.nested)
        .filter_map(|c| c.program_name())
        .collect()
}

// ---- program-name normalisation ----------------------------------------------

// proves: PROOF-2 (the name a deny list sees is the one bash runs)
#[test]
fn backslash_prefix_normalises_to_rm() {
    let l = parsed(r"\rm -rf x");
    assert_eq!(names(&l), [Some("rm")]);
    assert_eq!(l.commands[0].arg_values(), [Some("-rf"), Some("x")]);
    assert!(l.commands[0].program.as_ref().unwrap().flags.quoted);
}

// proves: PROOF-2
#[test]
fn empty_single_quotes_inside_name_normalise() {
    assert_eq!(names(&parsed("r''m -rf x")), [Some("rm")]);
}

// proves: PROOF-2
#[test]
fn double_quoted_part_of_name_normalises() {
    assert_eq!(names(&parsed("\"r\"m x")), [Some("rm")]);
}

// proves: PROOF-2
#[test]
fn fully_quoted_name_normalises() {
    assert_eq!(names(&parsed("'rm' x")), [Some("rm")]);
    assert_eq!(names(&parsed("\"rm\" x")), [Some("rm")]);
}

// proves: PROOF-2
#[test]
fn escaped_letters_in_middle_normalise() {
    assert_eq!(names(&parsed(r"r\m x")), [Some("rm")]);
    assert_eq!(names(&parsed(r"cu\rl x")), [Some("curl")]);
}

// proves: PROOF-2
#[test]
fn absolute_program_keeps_path_and_basename_is_rm() {
    let l = parsed("/bin/rm x");
    assert_eq!(l.commands[0].program_name(), Some("/bin/rm"));
    assert_eq!(l.commands[0].program_basename(), Some("rm"));
}

// proves: PROOF-3 (ANSI-C in command position has no static name)
#[test]
fn ansi_c_name_has_no_static_name() {
    let l = parsed(r"$'\x72m' -rf x");
    assert_eq!(names(&l), [None]);
    assert!(l.commands[0].program_is_dynamic());
    assert!(l.constructs.ansi_c_string && l.constructs.ansi_c_in_command_position);
    assert!(l.constructs.dynamic_command_name);
}

// proves: PROOF-3
#[test]
fn ansi_c_argument_is_not_static_but_not_in_command_position() {
    let l = parsed(r"printf $'\x41'");
    assert_eq!(names(&l), [Some("printf")]);
    assert_eq!(l.commands[0].arg_values(), [None]);
    assert!(l.constructs.ansi_c_string);
    assert!(!l.constructs.ansi_c_in_command_position);
}

// proves: PROOF-3 (globs in command position)
#[test]
fn glob_in_command_position() {
    let l = parsed("/???/?m -rf x");
    assert_eq!(names(&l), [None]);
    assert!(l.constructs.glob_in_command_position && l.constructs.dynamic_command_name);
}

// proves: PROOF-3
#[test]
fn bracket_glob_in_command_position() {
    let l = parsed("/bin/r[m] x");
    assert_eq!(names(&l), [None]);
    assert!(l.constructs.glob_in_command_position);
}

// proves: PROOF-3 (brace expansion in command position)
#[test]
fn brace_expansion_in_command_position() {
    let l = parsed("{rm,-rf,x}");
    assert_eq!(names(&l), [None]);
    assert!(l.constructs.brace_in_command_position && l.constructs.brace_expansion);
}

// proves: PROOF-3
#[test]
fn brace_with_quoted_member_is_still_brace_expansion() {
    let l = parsed("x{a,'b'}");
    assert!(l.constructs.brace_expansion);
}

// proves: PROOF-3 (false positives kept out: quoted braces and `{}` are text)
#[test]
fn quoted_braces_and_empty_braces_are_not_expansion() {
    let l = parsed("jq '{a,b}' f");
    assert!(!l.constructs.brace_expansion);
    assert_eq!(l.commands[0].arg_values(), [Some("{a,b}"), Some("f")]);
    let l = parsed("find . -name x -exec ls {} +");
    assert!(!l.constructs.brace_expansion);
}

// proves: PROOF-3
#[test]
fn sequence_brace_expansion_in_argument() {
    let l = parsed("echo {1..3}");
    assert!(l.constructs.brace_expansion && !l.constructs.brace_in_command_position);
    assert_eq!(l.commands[0].arg_values(), [None]);
}

// ---- variables and expansion ------------------------------------------------------

// proves: PROOF-2, PROOF-3 (`cmd=rm; $cmd`)
#[test]
fn variable_program_after_assignment() {
    let l = parsed("cmd=rm; $cmd -rf x");
    assert_eq!(l.commands.len(), 2);
    assert_eq!(l.commands[0].program, None);
    assert_eq!(l.commands[0].assignments[0].name, "cmd");
    assert_eq!(
        l.commands[0].assignments[0].value.value.as_deref(),
        Some("rm")
    );
    assert_eq!(names(&l), [None, None]);
    assert!(
        l.constructs.assignment
            && l.constructs.parameter_expansion
            && l.constructs.dynamic_command_name
    );
    assert_eq!(l.separators, [Separator::Semicolon]);
}

// proves: PROOF-3 (`${IFS}`)
#[test]
fn ifs_expansion_hides_a_space() {
    let l = parsed("cat${IFS}/etc/passwd");
    assert_eq!(names(&l), [None]);
    assert!(l.constructs.parameter_expansion);
}

// proves: PROOF-3
#[test]
fn ifs_in_argument() {
    let l = parsed("ls${IFS}-la x");
    assert!(l.constructs.parameter_expansion && l.constructs.dynamic_command_name);
}

// proves: PROOF-3 ($HOME)
#[test]
fn home_variable_forms() {
    for text in [
        "cat $HOME/.ssh/id_rsa",
        "cat ${HOME}/.ssh/id_rsa",
        "cat \"$HOME\"/x",
    ] {
        let l = parsed(text);
        assert!(l.constructs.parameter_expansion, "{text}");
        assert_eq!(l.commands[0].arg_values(), [None], "{text}");
    }
}

// proves: PROOF-3 (~)
#[test]
fn tilde_forms() {
    for text in [
        "cat ~/.ssh/id_rsa",
        "cat ~root/x",
        "ls --dir=~/x",
        "X=~/y ls",
    ] {
        let l = parsed(text);
        assert!(l.constructs.tilde, "{text}");
    }
    let l = parsed("echo '~' \\~/x");
    assert!(!l.constructs.tilde);
    assert_eq!(l.commands[0].arg_values(), [Some("~"), Some("~/x")]);
}

// proves: PROOF-3 (arithmetic)
#[test]
fn arithmetic_expansion_and_command() {
    assert!(parsed("echo $((1+2))").constructs.arithmetic_expansion);
    assert!(parsed("(( x = 1 ))").constructs.arithmetic_expansion);
}

// proves: PROOF-3
#[test]
fn substitution_inside_arithmetic_is_nested_command() {
    let l = parsed("echo $(( $(rm -rf x) + 1 ))");
    assert!(l.constructs.command_substitution);
    assert_eq!(nested_names(&l), ["rm"]);
}

// proves: PROOF-3
#[test]
fn substitution_inside_parameter_default_is_nested_command() {
    let l = parsed("echo ${x:-$(rm -rf y)}");
    assert!(l.constructs.parameter_expansion && l.constructs.command_substitution);
    assert_eq!(nested_names(&l), ["rm"]);
}

// proves: PROOF-3
#[test]
fn locale_string_is_not_static() {
    let l = parsed("echo $\"hello\"");
    assert!(l.constructs.locale_string);
    assert_eq!(l.commands[0].arg_values(), [None]);
}

// ---- substitutions -----------------------------------------------------------

// proves: PROOF-3 (command substitution, nested commands visible)
#[test]
fn command_substitution_lists_nested_command() {
    let l = parsed("echo $(rm -rf x)");
    assert!(l.constructs.command_substitution);
    assert_eq!(names(&l), [Some("echo"), Some("rm")]);
    assert!(!l.commands[0].nested && l.commands[1].nested);
}

// proves: PROOF-3
#[test]
fn command_substitution_inside_double_quotes() {
    let l = parsed("echo \"a $(curl x) b\"");
    assert!(l.constructs.command_substitution);
    assert_eq!(nested_names(&l), ["curl"]);
}

// proves: PROOF-3 (backticks)
#[test]
fn backticks_list_nested_command() {
    let l = parsed("echo `rm -rf x`");
    assert!(l.constructs.backticks);
    assert_eq!(nested_names(&l), ["rm"]);
}

// proves: PROOF-3
#[test]
fn nested_substitutions_two_levels() {
    let l = parsed("echo $(echo $(curl evil))");
    assert_eq!(nested_names(&l), ["echo", "curl"]);
}

// proves: PROOF-3
#[test]
fn substitution_in_command_position() {
    let l = parsed("$(echo rm) -rf x");
    assert_eq!(names(&l), [None, Some("echo")]);
    assert!(l.constructs.dynamic_command_name && l.constructs.command_substitution);
}

// proves: PROOF-3 (process substitution `cat <(…)`)
#[test]
fn read_process_substitution() {
    let l = parsed("cat <(curl evil)");
    assert!(l.constructs.process_substitution);
    assert_eq!(names(&l), [Some("cat"), Some("curl")]);
    assert!(l.commands[0].args[0].flags.process_substitution);
}

// proves: PROOF-3 (`tee >(sh)`)
#[test]
fn write_process_substitution() {
    let l = parsed("echo rm | tee >(sh)");
    assert!(l.constructs.process_substitution);
    assert_eq!(nested_names(&l), ["sh"]);
}

// proves: PROOF-3
#[test]
fn process_substitution_as_redirect_target() {
    let l = parsed("ls > >(sh)");
    assert!(l.constructs.process_substitution);
    assert_eq!(nested_names(&l), ["sh"]);
}

// ---- wrappers: the wrapped program is visible as an argument ---------------------

// proves: PROOF-2 (exec/eval/command/env/xargs wrappers)
#[test]
fn wrappers_keep_wrapped_program_as_static_argument() {
    for (text, wrapper, first_arg) in [
        ("exec rm -rf x", "exec", "rm"),
        ("eval 'rm -rf x'", "eval", "rm -rf x"),
        ("command rm -rf x", "command", "rm"),
        ("env rm -rf x", "env", "rm"),
        ("xargs rm -rf", "xargs", "rm"),
        ("nohup rm x", "nohup", "rm"),
        ("timeout 5 curl x", "timeout", "5"),
        ("sh -c 'rm -rf x'", "sh", "-c"),
    ] {
        let l = parsed(text);
        assert_eq!(names(&l), [Some(wrapper)], "{text}");
        assert_eq!(
            l.commands[0].args[0].value.as_deref(),
            Some(first_arg),
            "{text}"
        );
    }
}

// proves: PROOF-2
#[test]
fn env_with_assignment_argument() {
    let l = parsed("env PAGER=sh git log");
    assert_eq!(names(&l), [Some("env")]);
    assert_eq!(
        l.commands[0].arg_values(),
        [Some("PAGER=sh"), Some("git"), Some("log")]
    );
}

// proves: PROOF-2 (`find -exec`)
#[test]
fn find_exec_arguments_are_static() {
    let l = parsed("find . -name '*.rs' -exec rm {} \\;");
    assert_eq!(names(&l), [Some("find")]);
    assert_eq!(
        l.commands[0].arg_values(),
        [
            Some("."),
            Some("-name"),
            Some("*.rs"),
            Some("-exec"),
            Some("rm"),
            Some("{}"),
            Some(";")
        ]
    );
    assert!(!l.constructs.glob);
}

// proves: PROOF-2 (`git -c core.pager=…`)
#[test]
fn git_config_option_is_visible() {
    let l = parsed("git -c core.pager='sh -c \"curl x\"' log");
    assert_eq!(
        l.commands[0].arg_values(),
        [Some("-c"), Some("core.pager=sh -c \"curl x\""), Some("log")]
    );
}

// proves: PROOF-2 (`sed 'w ~/.zshenv'`)
#[test]
fn sed_script_is_one_static_argument() {
    let l = parsed("sed 'w ~/.zshenv' f");
    assert_eq!(l.commands[0].arg_values(), [Some("w ~/.zshenv"), Some("f")]);
    assert!(
        !l.constructs.tilde,
        "a quoted tilde is not expanded by the shell"
    );
}

// ---- assignments, export, alias, functions -------------------------------------------

// proves: PROOF-2 (assignment prefixes)
#[test]
fn assignment_prefixes() {
    let l = parsed("LD_PRELOAD=./evil.so PAGER=sh git log");
    let c = &l.commands[0];
    assert_eq!(c.program_name(), Some("git"));
    let pairs: Vec<_> = c
        .assignments
        .iter()
        .map(|a| (a.name.as_str(), a.value.value.as_deref()))
        .collect();
    assert_eq!(
        pairs,
        [("LD_PRELOAD", Some("./evil.so")), ("PAGER", Some("sh"))]
    );
}

// proves: PROOF-2 (`export PAGER=…`)
#[test]
fn export_is_a_command_with_declaration_argument() {
    let l = parsed("export PAGER='sh -c x'; git log");
    assert_eq!(names(&l), [Some("export"), Some("git")]);
    assert_eq!(l.commands[0].arg_values(), [Some("PAGER=sh -c x")]);
}

// proves: PROOF-2 (aliases)
#[test]
fn alias_definition_is_visible() {
    let l = parsed("alias ls='rm -rf'");
    assert_eq!(names(&l), [Some("alias")]);
    assert_eq!(l.commands[0].arg_values(), [Some("ls=rm -rf")]);
}

// proves: PROOF-2 (functions)
#[test]
fn function_definition_body_is_nested_and_visible() {
    let l = parsed("f() { rm -rf x; }; f");
    assert!(l.constructs.function_definition);
    assert_eq!(l.functions, ["f"]);
    assert_eq!(names(&l), [Some("rm"), Some("f")]);
    assert!(l.commands[0].nested && !l.commands[1].nested);
}

// proves: PROOF-2
#[test]
fn function_keyword_form() {
    let l = parsed("function ls { curl x; }");
    assert!(l.constructs.function_definition);
    assert_eq!(l.functions, ["ls"]);
    assert_eq!(nested_names(&l), ["curl"]);
}

// proves: PROOF-2
#[test]
fn function_shadowing_a_builtin_with_subshell_body() {
    let l = parsed("test() (rm x); test -f a");
    assert_eq!(l.functions, ["test"]);
    assert!(l.constructs.subshell);
}

// ---- redirections -------------------------------------------------------------

// proves: PERM-1, PROOF-3 (`echo x > ../f`)
#[test]
fn write_redirect_to_parent() {
    let l = parsed("echo x > ../f");
    let r = &l.commands[0].redirects[0];
    assert_eq!((r.fd, r.op), (None, RedirectOp::Write));
    assert_eq!(r.target.value.as_deref(), Some("../f"));
    assert!(r.writes_file() && l.constructs.redirect_writes);
}

// proves: PROOF-3 (every writing operator)
#[test]
fn every_writing_operator() {
    for (text, op) in [
        ("ls > f", RedirectOp::Write),
        ("ls >> f", RedirectOp::Append),
        ("ls &> f", RedirectOp::OutputAndError),
        ("ls &>> f", RedirectOp::AppendOutputAndError),
        ("ls >| f", RedirectOp::Clobber),
        ("ls 3<> f", RedirectOp::ReadWrite),
    ] {
        let l = parsed(text);
        let r = &l.redirects[0];
        assert_eq!(r.op, op, "{text}");
        assert!(r.writes_file(), "{text}");
        assert_eq!(r.target.value.as_deref(), Some("f"), "{text}");
    }
}

// proves: PROOF-3 (`>&file` writes a file; `>&2` does not)
#[test]
fn duplicate_output_to_word_writes_file() {
    let l = parsed("ls >& out.txt");
    assert!(l.redirects[0].writes_file());
    let l = parsed("ls 2>&1 >&2");
    assert!(l.redirects.iter().all(|r| !r.writes_file()));
    assert!(!l.constructs.redirect_writes);
}

// proves: PROOF-3
#[test]
fn stderr_to_dev_null_keeps_fd_and_target() {
    let l = parsed("cargo test 2>/dev/null");
    let r = &l.redirects[0];
    assert_eq!(
        (r.fd, r.op, r.target.value.as_deref()),
        (Some(2), RedirectOp::Write, Some("/dev/null"))
    );
}

// proves: PROOF-3
#[test]
fn read_redirect_does_not_write() {
    let l = parsed("wc -l < /etc/passwd");
    assert_eq!(l.redirects[0].op, RedirectOp::Read);
    assert!(!l.redirects[0].writes_file());
}

// proves: PROOF-3
#[test]
fn redirect_before_program() {
    let l = parsed(">f echo x");
    assert_eq!(names(&l), [Some("echo")]);
    assert!(l.commands[0].redirects[0].writes_file());
}

// proves: PROOF-3
#[test]
fn redirect_on_group_is_inherited() {
    let l = parsed("{ echo a; echo b; } > ../out");
    assert!(l.constructs.brace_group && l.constructs.redirect_writes);
    assert!(
        l.commands
            .iter()
            .all(|c| c.redirects.iter().any(|r| r.writes_file()))
    );
}

// proves: PROOF-3 (here-strings)
#[test]
fn here_string() {
    let l = parsed("cat <<< 'hello'");
    assert!(l.constructs.herestring);
    assert_eq!(l.redirects[0].op, RedirectOp::HereString);
    assert_eq!(l.redirects[0].target.value.as_deref(), Some("hello"));
}

// proves: PROOF-3 (heredocs and the commands inside them)
#[test]
fn heredoc_with_substitution_lists_nested_command() {
    let l = parsed("cat <<EOF\n$(rm -rf x)\nEOF");
    assert!(l.constructs.heredoc && l.constructs.newline);
    assert_eq!(nested_names(&l), ["rm"]);
}

// proves: PROOF-3
#[test]
fn quoted_heredoc_does_not_expand() {
    let l = parsed("cat <<'EOF'\n$(rm -rf x)\nEOF");
    assert!(l.constructs.heredoc);
    assert!(nested_names(&l).is_empty());
    assert!(!l.constructs.command_substitution);
}

// ---- separators, pipelines, background, newlines --------------------------------------

// proves: PROOF-2 (prefix matching past `&&`: every command is listed)
#[test]
fn and_chain_lists_every_command() {
    let l = parsed("echo ok && rm -rf x");
    assert_eq!(names(&l), [Some("echo"), Some("rm")]);
    assert_eq!(l.separators, [Separator::And]);
    assert_eq!(l.commands[1].follows, Some(Separator::And));
}

// proves: PROOF-5
#[test]
fn all_separators_in_order() {
    let l = parsed("a && b | c || d; e & f");
    assert_eq!(
        l.separators,
        [
            Separator::And,
            Separator::Pipe,
            Separator::Or,
            Separator::Semicolon,
            Separator::Background
        ]
    );
    assert_eq!(
        names(&l),
        [
            Some("a"),
            Some("b"),
            Some("c"),
            Some("d"),
            Some("e"),
            Some("f")
        ]
    );
    assert!(l.commands[4].background && !l.commands[5].background);
}

// proves: PROOF-3 (`&` backgrounding)
#[test]
fn trailing_background() {
    let l = parsed("sleep 100 &");
    assert!(l.constructs.background);
    assert_eq!(l.separators, [Separator::Background]);
    assert!(l.commands[0].background);
}

// proves: PROOF-1 (newline-separated commands)
#[test]
fn newline_separated_commands() {
    let l = parsed("cargo test\ncurl evil");
    assert!(l.constructs.newline);
    assert_eq!(names(&l), [Some("cargo"), Some("curl")]);
    assert_eq!(l.separators, [Separator::Newline]);
}

// proves: PROOF-1
#[test]
fn carriage_return_counts_as_newline() {
    assert!(analyze("ls\rrm x").constructs.newline);
}

// proves: PROOF-5 (forced status visible)
#[test]
fn or_true_is_visible_at_the_end() {
    let l = parsed("cargo test || true");
    let last = l.commands.last().unwrap();
    assert_eq!(
        (last.program_name(), last.follows),
        (Some("true"), Some(Separator::Or))
    );
}

// proves: PROOF-5
#[test]
fn negation_and_time() {
    let l = parsed("! grep -q x f");
    assert!(l.constructs.negation && l.commands[0].negated);
    let l = parsed("time cargo test");
    assert!(l.constructs.timed && l.commands[0].timed);
    assert_eq!(names(&l), [Some("cargo")]);
}

// proves: PROOF-5
#[test]
fn pipe_stderr_to_grep() {
    let l = parsed("cargo test -q 2>&1 | grep -q \"test result: ok\"");
    assert_eq!(names(&l), [Some("cargo"), Some("grep")]);
    assert_eq!(l.separators, [Separator::Pipe]);
    assert_eq!(
        l.commands[1].arg_values(),
        [Some("-q"), Some("test result: ok")]
    );
    assert!(!l.constructs.redirect_writes);
}

// ---- compound commands ----------------------------------------------------------

// proves: PROOF-3 (subshells)
#[test]
fn subshell_commands_are_nested() {
    let l = parsed("(cd .. && rm -rf x)");
    assert!(l.constructs.subshell);
    assert_eq!(nested_names(&l), ["cd", "rm"]);
}

// proves: PROOF-3
#[test]
fn control_flow_bodies_are_visible() {
    for (text, inner) in [
        ("for f in a b; do rm $f; done", "rm"),
        ("while true; do curl x; done", "curl"),
        ("until false; do wget x; done", "wget"),
        ("if test -f a; then rm a; fi", "rm"),
        ("case x in x) rm y;; esac", "rm"),
    ] {
        let l = parsed(text);
        assert!(l.constructs.control_flow, "{text}");
        assert!(
            nested_names(&l).contains(&inner),
            "{text}: {:?}",
            nested_names(&l)
        );
    }
}

// proves: PROOF-3
#[test]
fn coprocess_is_background() {
    let l = parsed("coproc rm x");
    assert!(l.constructs.coprocess && l.constructs.background);
    assert_eq!(nested_names(&l), ["rm"]);
}

// proves: PROOF-3
#[test]
fn extended_test_is_a_command_with_operands() {
    let l = parsed("[[ -f Cargo.toml ]]");
    assert!(l.constructs.extended_test);
    assert_eq!(names(&l), [Some("[[")]);
    assert_eq!(l.commands[0].arg_values(), [Some("-f"), Some("Cargo.toml")]);
    let l = parsed("[[ ! -d a && b == c ]]");
    assert_eq!(
        l.commands[0].arg_values(),
        [
            Some("!"),
            Some("-d"),
            Some("a"),
            Some("&&"),
            Some("b"),
            Some("=="),
            Some("c")
        ]
    );
    let l = parsed("[[ $(rm x) == y ]]");
    assert_eq!(nested_names(&l), ["rm"]);
}

// proves: PROOF-5
#[test]
fn single_bracket_test_is_static() {
    let l = parsed("[ -f x ]");
    assert_eq!(names(&l), [Some("[")]);
    assert_eq!(
        l.commands[0].arg_values(),
        [Some("-f"), Some("x"), Some("]")]
    );
    assert!(!l.constructs.glob);
}

// ---- globs in arguments ------------------------------------------------------------

// proves: PROOF-3
#[test]
fn unquoted_glob_argument_is_not_static() {
    let l = parsed("ls *.rs");
    assert!(l.constructs.glob && !l.constructs.glob_in_command_position);
    assert_eq!(l.commands[0].arg_values(), [None]);
    let l = parsed("ls '*.rs' \\*.rs");
    assert!(!l.constructs.glob);
}

// ---- parse errors are never safe ------------------------------------------------------

// proves: PROOF-1 (a parse error is exposed)
#[test]
fn parse_errors_are_reported() {
    for text in [
        "echo 'unterminated",
        "if true; then",
        "echo $(",
        "a && ",
        "| b",
        "echo \"x",
        "((",
        "f() {",
        "cat <<EOF\nno end",
    ] {
        let l = analyze(text);
        if text.starts_with("cat <<") && l.parse_error.is_none() {
            // brush accepts an unterminated here-document; it is still a newline line.
            assert!(l.constructs.newline && l.constructs.heredoc);
            continue;
        }
        assert!(
            l.parse_error.is_some() && l.constructs.parse_error,
            "{text:?} should not parse: {l:?}"
        );
    }
}

// proves: PROOF-1
#[test]
fn parse_error_inside_substitution_is_reported() {
    let l = analyze("echo \"$(if)\"");
    assert!(l.constructs.parse_error, "{l:?}");
}

// proves: PROOF-1
#[test]
fn deep_nesting_is_refused_not_crashed() {
    let deep = format!("{}x{}", "(".repeat(5000), ")".repeat(5000));
    assert!(analyze(&deep).constructs.parse_error);
    let deep_subst = format!("{}x{}", "$(echo ".repeat(40), ")".repeat(40));
    let l = analyze(&deep_subst);
    assert!(
        l.constructs.parse_error && l.parse_error.as_deref().unwrap_or("").contains("nest"),
        "{:?}",
        l.parse_error
    );
}

// proves: PROOF-1
#[test]
fn overlong_line_is_refused() {
    let long = "a ".repeat(ploy_shell::MAX_LINE_BYTES);
    assert!(analyze(&long).constructs.parse_error);
}

// proves: PROOF-5 (an empty line has no command and no error)
#[test]
fn empty_and_comment_lines() {
    assert!(parsed("").commands.is_empty());
    assert!(parsed("   ").commands.is_empty());
    assert!(parsed("# rm -rf x").commands.is_empty());
    assert_eq!(names(&parsed("ls # ; rm -rf x")), [Some("ls")]);
}

// ---- ordinary lines stay static ---------------------------------------------------

// proves: PROOF-5 (ordinary proofs summarise without false alarms)
#[test]
fn ordinary_lines_have_no_constructs() {
    for text in [
        "cargo test -q",
        "grep -q \"fn main\" src/main.rs",
        "test -f README.md && test -d src",
        "python3 -c \"assert 1 + 1 == 2\"",
        "jq -e '.name' package.json",
        "go test ./...",
        "git diff --exit-code",
    ] {
        let l = parsed(text);
        let c = l.constructs;
        assert!(
            !(c.command_substitution
                || c.parameter_expansion
                || c.glob
                || c.tilde
                || c.brace_expansion
                || c.background
                || c.redirect_writes),
            "{text}: {c:?}"
        );
        assert!(
            l.commands
                .iter()
                .all(|cmd| cmd.args.iter().all(|a| a.is_static())),
            "{text}"
        );
    }
}

// proves: PROOF-1 (found by fuzzing: runs of unmatched `{` made the brace
// parser backtrack for seconds; they now cost microseconds and read as a brace
// expansion, the cautious answer)
#[test]
fn runs_of_braces_are_fast_and_cautious() {
    let started = std::time::Instant::now();
    for n in [14, 40, 200] {
        let word = format!(",,]{}rm{{${{}}", "{".repeat(n));
        let l = analyze(&word);
        assert!(
            l.constructs.brace_expansion || l.constructs.parse_error,
            "{word}: {:?}",
            l.constructs
        );
        assert!(l.commands.iter().all(|c| c.program_name().is_none()));
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
}

// proves: PROOF-1 (found by fuzzing: brush-parser's brace parser unwraps an
// integer overflow; the panic must read as a parse error, never crash the caller)
#[test]
fn parser_panic_is_a_parse_error() {
    let l = analyze("ndnd'xe'{d,{992222299229222992299");
    assert!(l.constructs.parse_error && l.parse_error.is_some(), "{l:?}");
    assert!(l.commands.is_empty());
    let l = analyze("echo {1..99999999999999999999999}");
    assert!(l.constructs.parse_error, "{l:?}");
}

// proves: PROOF-1 (found by fuzzing: brush's parser backtracks exponentially on
// unclosed `(`; deeper than MAX_PAREN_NESTING is refused before parsing, and
// the worst shapes at the limit stay fast)
#[test]
fn unclosed_parentheses_are_bounded() {
    let started = std::time::Instant::now();
    let n = ploy_shell::MAX_PAREN_NESTING;
    for shape in [
        format!("{}f() ", "(".repeat(n)),
        format!("{}x", "(".repeat(n)),
        format!("{}f() ", "(".repeat(n + 1)),
        format!("{}x", "(".repeat(30)),
        format!("echo {}", "$(".repeat(n)),
        format!("{}ls{}", "(".repeat(n), ")".repeat(n)),
    ] {
        let l = analyze(&shape);
        if shape.matches('(').count() > n && !shape.starts_with("echo") {
            assert!(l.constructs.parse_error, "{shape}");
        }
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
}

// proves: PROOF-1 (found by fuzzing: a form feed after `<<` made brush's
// tokenizer spin for seconds; control characters are now a parse error)
#[test]
fn control_characters_are_a_parse_error() {
    let started = std::time::Instant::now();
    for line in [
        "a<<\u{c}<{><c(c ",
        "ls\u{0}rm",
        "echo \u{1b}[31m",
        "cat\u{7f}x",
    ] {
        let l = analyze(line);
        assert!(l.constructs.parse_error, "{line:?}");
        assert!(
            l.parse_error
                .as_deref()
                .unwrap_or("")
                .contains("control character"),
            "{line:?}"
        );
    }
    assert!(
        analyze("grep -q \"a\tb\" f").parse_error.is_none(),
        "tab is fine"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
}

// proves: PROOF-1 (found by fuzzing: brush's word parser backtracks on several
// `${` in one word; such words are a parse error, and the known one is fast)
#[test]
fn many_expansions_in_one_word_are_bounded() {
    let started = std::time::Instant::now();
    let l = analyze("${D[${E[}${D[${E[:(ydl)}([, l)a}}a");
    assert!(l.constructs.parse_error, "{l:?}");
    let l = analyze("echo ${a}${b}${c}");
    assert!(!l.constructs.parse_error && l.constructs.parameter_expansion);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
}

// proves: PROOF-1 (found by fuzzing: brush's tokenizer never returns on a
// here-document delimiter like `$('')`; such lines are a parse error at once)
#[test]
fn substitution_in_heredoc_delimiter_is_a_parse_error() {
    let started = std::time::Instant::now();
    for line in [
        "cat <<$('') ",
        "<<\"$('')\" ",
        "cat <<-\"$(\"\")\"",
        "cat << `x`",
    ] {
        let l = analyze(line);
        assert!(l.constructs.parse_error, "{line:?}: {l:?}");
    }
    assert!(
        analyze("cat <<< \"$(id)\"").constructs.command_substitution,
        "here-strings are not delimiters"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
}

// proves: PROOF-1 (found by fuzzing: an empty here-document delimiter followed
// by a blank makes brush's tokenizer spin; such lines are a parse error at once)
#[test]
fn empty_heredoc_delimiter_is_a_parse_error() {
    let started = std::time::Instant::now();
    for line in ["cat <<'' ", "<<\"\" ", "cat <<'' x", "cat <<"] {
        assert!(analyze(line).constructs.parse_error, "{line:?}");
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
}

// proves: PROOF-1 (found by fuzzing: unclosed nested `${a[` made brush's
// tokenizer backtrack for seconds; deeper than MAX_EXPANSION_NESTING is refused)
#[test]
fn nested_parameter_expansions_are_bounded() {
    let started = std::time::Instant::now();
    let l = analyze("A[${a[${a[A[${f[${a[d[}}}}");
    assert!(l.constructs.parse_error, "{l:?}");
    let l = analyze("echo ${A} ${B} ${C} ${D} ${E}");
    assert!(
        !l.constructs.parse_error,
        "sequential expansions are fine: {l:?}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
}

// proves: PROOF-1 (fuzzing: three nested unclosed `${a[` still took 0.5 s)
#[test]
fn three_nested_parameter_expansions_are_refused() {
    assert!(
        analyze("A[${a[${a[\"\"l[}${a[${a[l[g}}}")
            .constructs
            .parse_error
    );
    assert!(
        !analyze("echo ${x:-${y}}").constructs.parse_error,
        "two levels are analysed"
    );
}

// proves: PROOF-1 (found by fuzzing: 120 bytes of `${…[` and `{` kept brush's
// parser busy for 4 s; a deadline turns that into a prompt parse error)
#[test]
fn slow_lines_hit_the_deadline_and_fail_closed() {
    let line = "EdA[${fEda[\\)=,\\\\\\r s${fEa[ddA[\\)itog{ \"oT\"_l[s}arg}ag{EdA[${fEda[\\)=,\\\\\\r s${fEa[ddA[\\)itog{ \"oT\"_l[s}arg}ag{}}";
    let started = std::time::Instant::now();
    let l = analyze(line);
    assert!(l.constructs.parse_error, "{l:?}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
    // Ordinary lines with braces still parse on the worker thread.
    let l = analyze("echo ${HOME} && jq '{a: 1}' f");
    assert!(
        !l.constructs.parse_error && l.constructs.parameter_expansion,
        "{l:?}"
    );
}
