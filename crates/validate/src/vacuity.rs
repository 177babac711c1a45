//! PROOF-5 on the plan: a line must be able to both pass and fail.
//!
//! Each command that decides a pipeline's status is described by a
//! condition ([`Cond`]) over what it depends on: properties of paths in the
//! project (`test -f x`, `cat x` fails when `x` is missing) and outcomes the
//! validator cannot know (what `grep` finds, whether `cargo test` passes),
//! equal for equal commands. The plan's condition is folded through
//! [`ProofPlan::fold`](crate::ProofPlan::fold), the one place the `&&`,
//! `||` and `!` semantics live, and a line whose condition is the same in
//! every state of the project (`true`, `test x = x`, `cargo test || true`,
//! `test -e f -o ! -e f`, `ls`) verifies nothing and is refused.
//!
//! Paths are modelled by a few realistic states (missing, dangling link,
//! empty file, file, read-only file, executable, directory, links, other),
//! so the answer "this can fail and pass" is always true of some real
//! project; a line the model calls constant may rarely be refused though a
//! contrived project could tell the cases apart (fail closed).

use crate::plan::{Pipeline, ProofPlan, StatusDomain};

/// What a status depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cond {
    /// Fixed: always success (`true`) or always failure.
    Const(bool),
    /// An outcome the validator cannot know; equal keys are equal outcomes.
    Unknown(String),
    /// A property of a project path (the key is normalised, see [`path_key`]).
    Path(PathTest, String),
    /// Negation.
    Not(Box<Cond>),
    /// Both.
    And(Box<Cond>, Box<Cond>),
    /// Either.
    Or(Box<Cond>, Box<Cond>),
}

/// A property of a path, as `test` and file-reading programs see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathTest {
    /// `-e`: exists (following links).
    Exists,
    /// `-f`: a regular file.
    File,
    /// `-d`: a directory.
    Dir,
    /// `-s`: exists with a size above zero.
    NonEmpty,
    /// `-r`.
    Readable,
    /// `-w`.
    Writable,
    /// `-x`.
    Executable,
    /// `-L`/`-h`: is a symbolic link (not followed).
    Symlink,
    /// The path can be opened and read as a file: exists and is not a
    /// directory (what `cat`, `head`, `wc`, `cmp` need).
    ReadableFile,
    /// The path itself is there, link or not (what `ls` and `find` need).
    Present,
}

impl Cond {
    pub(crate) fn not(self) -> Cond {
        match self {
            Cond::Const(b) => Cond::Const(!b),
            Cond::Not(inner) => *inner,
            other => Cond::Not(Box::new(other)),
        }
    }

    pub(crate) fn and(self, other: Cond) -> Cond {
        match (self, other) {
            (Cond::Const(true), x) | (x, Cond::Const(true)) => x,
            (Cond::Const(false), _) | (_, Cond::Const(false)) => Cond::Const(false),
            (a, b) => Cond::And(Box::new(a), Box::new(b)),
        }
    }

    pub(crate) fn or(self, other: Cond) -> Cond {
        match (self, other) {
            (Cond::Const(false), x) | (x, Cond::Const(false)) => x,
            (Cond::Const(true), _) | (_, Cond::Const(true)) => Cond::Const(true),
            (a, b) => Cond::Or(Box::new(a), Box::new(b)),
        }
    }

    pub(crate) fn all(conds: impl IntoIterator<Item = Cond>) -> Cond {
        conds.into_iter().fold(Cond::Const(true), Cond::and)
    }

    pub(crate) fn any(conds: impl IntoIterator<Item = Cond>) -> Cond {
        conds.into_iter().fold(Cond::Const(false), Cond::or)
    }

    /// A path property, with the path normalised (`./x/` is `x` that must
    /// be a directory, `` is a path that never exists, `.` the project).
    pub(crate) fn path(test: PathTest, path: &str) -> Cond {
        let (key, must_be_dir) = path_key(path);
        if key.is_empty() {
            return Cond::Const(false);
        }
        if !must_be_dir {
            return Cond::Path(test, key);
        }
        match test {
            // `lstat("x/")` follows a link to a directory: never a link.
            PathTest::Symlink => Cond::Const(false),
            PathTest::Present => Cond::Path(PathTest::Dir, key),
            other => Cond::Path(PathTest::Dir, key.clone()).and(Cond::Path(other, key)),
        }
    }
}

/// The normalised key of a path and whether a trailing `/` requires a
/// directory. `./a//b/.` is `a/b` (directory required); `.` and `./` are
/// `.`; the empty path is the empty key (never exists).
pub(crate) fn path_key(path: &str) -> (String, bool) {
    if path.is_empty() {
        return (String::new(), false);
    }
    let must_be_dir = path.ends_with('/') || path.ends_with("/.") || path == ".";
    let mut key = String::with_capacity(path.len());
    for part in path.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if !key.is_empty() {
            key.push('/');
        }
        key.push_str(part);
    }
    if key.is_empty() {
        key.push('.');
    }
    let must_be_dir = must_be_dir && key != ".";
    (key, must_be_dir)
}

/// One state a path can be in.
#[derive(Clone, Copy)]
struct State {
    exists: bool,
    file: bool,
    dir: bool,
    nonempty: bool,
    r: bool,
    w: bool,
    x: bool,
    link: bool,
}

const fn st(
    exists: bool,
    file: bool,
    dir: bool,
    nonempty: bool,
    rwx: (bool, bool, bool),
    link: bool,
) -> State {
    State {
        exists,
        file,
        dir,
        nonempty,
        r: rwx.0,
        w: rwx.1,
        x: rwx.2,
        link,
    }
}

const NONE: (bool, bool, bool) = (false, false, false);
const RW: (bool, bool, bool) = (true, true, false);
const RWX: (bool, bool, bool) = (true, true, true);

/// Realistic states of a path: every one occurs in real projects.
const STATES: [State; 10] = [
    st(false, false, false, false, NONE, false), // missing
    st(false, false, false, false, NONE, true),  // dangling link
    st(true, true, false, false, RW, false),     // empty file
    st(true, true, false, true, RW, false),      // file
    st(true, true, false, true, (true, false, false), false), // read-only file
    st(true, true, false, true, RWX, false),     // executable
    st(true, false, true, true, RWX, false),     // directory
    st(true, true, false, true, RW, true),       // link to a file
    st(true, false, true, true, RWX, true),      // link to a directory
    st(true, false, false, false, RW, false),    // device, pipe, socket
];

/// The project folder itself: a directory that exists.
const DOT_STATE: usize = 6;

impl PathTest {
    fn holds(self, s: &State) -> bool {
        match self {
            PathTest::Exists => s.exists,
            PathTest::File => s.file,
            PathTest::Dir => s.dir,
            PathTest::NonEmpty => s.nonempty,
            PathTest::Readable => s.r,
            PathTest::Writable => s.w,
            PathTest::Executable => s.x,
            PathTest::Symlink => s.link,
            PathTest::ReadableFile => s.exists && !s.dir && s.r,
            PathTest::Present => s.exists || s.link,
        }
    }
}

fn domain(key: &str) -> std::ops::Range<usize> {
    if key == "." {
        DOT_STATE..DOT_STATE + 1
    } else {
        0..STATES.len()
    }
}

/// Most assignments of shared variables tried before giving up.
const MAX_ASSIGNMENTS: usize = 4096;

/// The answer for a condition.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// It can both pass and fail.
    Depends,
    /// It is the same whatever the project holds.
    Fixed(bool),
    /// Too many repeated checks to decide (refused: fail closed).
    TooComplex,
}

/// A variable of a condition: an unknown outcome or a path.
struct Var<'a> {
    key: &'a str,
    path: bool,
    uses: usize,
    /// The path tests applied to it (paths only), as a bit set.
    tests: u16,
}

/// One node of a condition whose variables are numbered; children are
/// indices into the same arena (no allocation per node).
#[derive(Clone, Copy)]
enum Node {
    Const(bool),
    /// What a part without shared variables can be: (true?, false?).
    Free(bool, bool),
    Unknown(usize),
    Path(PathTest, usize),
    Not(usize),
    And(usize, usize),
    Or(usize, usize),
}

impl PathTest {
    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// Conditions combined without copying them (the plan's condition is made
/// of its pipelines' conditions).
pub(crate) enum Formula<'a> {
    /// One condition.
    Leaf(&'a Cond),
    /// Negation.
    Not(Box<Formula<'a>>),
    /// Both.
    And(Box<Formula<'a>>, Box<Formula<'a>>),
    /// Either.
    Or(Box<Formula<'a>>, Box<Formula<'a>>),
}

/// Numbers the variables and lays the nodes out in an arena.
struct Compiler<'a> {
    vars: Vec<Var<'a>>,
    nodes: Vec<Node>,
}

impl<'a> Compiler<'a> {
    fn var(&mut self, key: &'a str, path: bool, test: Option<PathTest>) -> usize {
        // A line has a few dozen variables at most: a scan beats hashing.
        let at = match self
            .vars
            .iter()
            .position(|v| v.path == path && v.key == key)
        {
            Some(at) => at,
            None => {
                self.vars.push(Var {
                    key,
                    path,
                    uses: 0,
                    tests: 0,
                });
                self.vars.len() - 1
            }
        };
        self.vars[at].uses += 1;
        if let Some(test) = test {
            self.vars[at].tests |= test.bit();
        }
        at
    }

    fn push(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    fn cond(&mut self, cond: &'a Cond) -> usize {
        let node = match cond {
            Cond::Const(b) => Node::Const(*b),
            Cond::Unknown(key) => Node::Unknown(self.var(key, false, None)),
            Cond::Path(test, key) => Node::Path(*test, self.var(key, true, Some(*test))),
            Cond::Not(a) => Node::Not(self.cond(a)),
            Cond::And(a, b) => {
                let a = self.cond(a);
                Node::And(a, self.cond(b))
            }
            Cond::Or(a, b) => {
                let a = self.cond(a);
                Node::Or(a, self.cond(b))
            }
        };
        self.push(node)
    }

    fn formula(&mut self, formula: &Formula<'a>) -> usize {
        let node = match formula {
            Formula::Leaf(cond) => return self.cond(cond),
            Formula::Not(a) => Node::Not(self.formula(a)),
            Formula::And(a, b) => {
                let a = self.formula(a);
                Node::And(a, self.formula(b))
            }
            Formula::Or(a, b) => {
                let a = self.formula(a);
                Node::Or(a, self.formula(b))
            }
        };
        self.push(node)
    }
}

fn is_ancestor(ancestor: &str, path: &str) -> bool {
    ancestor != path
        && (ancestor == "."
            || path
                .strip_prefix(ancestor)
                .is_some_and(|rest| rest.starts_with('/')))
}

const ALL_TESTS: [PathTest; 10] = [
    PathTest::Exists,
    PathTest::File,
    PathTest::Dir,
    PathTest::NonEmpty,
    PathTest::Readable,
    PathTest::Writable,
    PathTest::Executable,
    PathTest::Symlink,
    PathTest::ReadableFile,
    PathTest::Present,
];

/// The states of a path a condition can tell apart: one state for each
/// distinct answer to the tests applied to it (the rest are the same to
/// the condition).
fn distinct_states(key: &str, tests: u16) -> Vec<usize> {
    let mut seen: Vec<u16> = Vec::new();
    let mut states = Vec::new();
    for s in domain(key) {
        let answers = ALL_TESTS
            .iter()
            .filter(|t| tests & t.bit() != 0 && t.holds(&STATES[s]))
            .fold(0u16, |acc, t| acc | t.bit());
        if !seen.contains(&answers) {
            seen.push(answers);
            states.push(s);
        }
    }
    states
}

/// (can be true, can be false) of node `at` with the shared variables
/// fixed by `fixed` (a state index for a path, 0/1 for an unknown); the
/// others occur once and are free, so sub-results combine exactly.
fn eval(nodes: &[Node], at: usize, vars: &[Var], fixed: &[Option<usize>]) -> (bool, bool) {
    match nodes[at] {
        Node::Const(b) => (b, !b),
        Node::Free(t, f) => (t, f),
        Node::Unknown(v) => match fixed[v] {
            Some(x) => (x == 1, x == 0),
            None => (true, true),
        },
        Node::Path(test, v) => match fixed[v] {
            Some(s) => {
                let holds = test.holds(&STATES[s]);
                (holds, !holds)
            }
            None => domain(vars[v].key).fold((false, false), |(t, f), s| {
                let holds = test.holds(&STATES[s]);
                (t || holds, f || !holds)
            }),
        },
        Node::Not(a) => {
            let (t, f) = eval(nodes, a, vars, fixed);
            (f, t)
        }
        Node::And(x, y) => {
            let (tx, fx) = eval(nodes, x, vars, fixed);
            let (ty, fy) = eval(nodes, y, vars, fixed);
            (tx && ty, fx || fy)
        }
        Node::Or(x, y) => {
            let (tx, fx) = eval(nodes, x, vars, fixed);
            let (ty, fy) = eval(nodes, y, vars, fixed);
            (tx || ty, fx && fy)
        }
    }
}

/// Replaces, in place, every part that holds no shared variable by what it
/// can be, so the enumeration only walks what it must. Children come
/// before their parents in the arena, so one pass in order is enough.
fn fold_free(nodes: &mut [Node], vars: &[Var], shared: &[bool]) {
    let unfixed = vec![None; vars.len()];
    for at in 0..nodes.len() {
        let free = |n: Node| matches!(n, Node::Free(..) | Node::Const(_));
        let evaluable = match nodes[at] {
            Node::Unknown(v) | Node::Path(_, v) => !shared[v],
            Node::Not(a) => free(nodes[a]),
            Node::And(a, b) | Node::Or(a, b) => free(nodes[a]) && free(nodes[b]),
            Node::Const(_) | Node::Free(..) => false,
        };
        if evaluable {
            let (t, f) = eval(nodes, at, vars, &unfixed);
            nodes[at] = Node::Free(t, f);
        }
    }
}

/// Whether `cond` can both hold and fail.
pub(crate) fn outcome(cond: &Cond) -> Outcome {
    if read_once(&Formula::Leaf(cond)) {
        return Outcome::Depends;
    }
    outcome_of(&Formula::Leaf(cond))
}

/// True when `formula` is read-once over variables that can each be true
/// and false: no variable appears twice, no path lies below another, no
/// constant, no path that is the project folder or the empty path. Such a
/// formula of `!`, `&&` and `||` is never constant, so the enumeration is
/// not needed (the common case: every check written once).
fn read_once(formula: &Formula) -> bool {
    fn leaves<'a>(formula: &Formula<'a>, out: &mut Vec<&'a Cond>) {
        match formula {
            Formula::Leaf(cond) => cond_leaves(cond, out),
            Formula::Not(a) => leaves(a, out),
            Formula::And(a, b) | Formula::Or(a, b) => {
                leaves(a, out);
                leaves(b, out);
            }
        }
    }
    fn cond_leaves<'a>(cond: &'a Cond, out: &mut Vec<&'a Cond>) {
        match cond {
            Cond::Not(a) => cond_leaves(a, out),
            Cond::And(a, b) | Cond::Or(a, b) => {
                cond_leaves(a, out);
                cond_leaves(b, out);
            }
            leaf => out.push(leaf),
        }
    }
    let mut all = Vec::with_capacity(16);
    leaves(formula, &mut all);
    all.iter().enumerate().all(|(i, leaf)| match leaf {
        Cond::Unknown(key) => !all[..i]
            .iter()
            .any(|other| matches!(other, Cond::Unknown(k) if k == key)),
        Cond::Path(_, key) => {
            key != "."
                && !key.is_empty()
                && !all[..i].iter().any(|other| {
                    matches!(other, Cond::Path(_, k) if k == key || is_ancestor(k, key) || is_ancestor(key, k))
                })
        }
        _ => false,
    })
}

/// Whether `formula` can both hold and fail.
pub(crate) fn outcome_of(formula: &Formula) -> Outcome {
    if read_once(formula) {
        return Outcome::Depends;
    }
    let mut compiler = Compiler {
        vars: Vec::with_capacity(32),
        nodes: Vec::with_capacity(128),
    };
    let root = compiler.formula(formula);
    let Compiler {
        vars, mut nodes, ..
    } = compiler;
    // Shared: used more than once, or a path related to another path (a
    // path below another exists only inside a directory).
    let paths: Vec<usize> = (0..vars.len()).filter(|v| vars[*v].path).collect();
    let related: Vec<(usize, usize)> = paths
        .iter()
        .flat_map(|a| paths.iter().map(move |b| (*a, *b)))
        .filter(|(a, b)| is_ancestor(vars[*a].key, vars[*b].key))
        .collect();
    let mut shared: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut is_shared = vec![false; vars.len()];
    for (v, var) in vars.iter().enumerate() {
        let linked = related.iter().any(|(a, b)| *a == v || *b == v);
        if var.uses < 2 && !linked {
            continue;
        }
        let values = if var.path {
            // The ancestor rule reads whether a child is there and whether
            // an ancestor is a directory.
            let mut tests = var.tests;
            if related.iter().any(|(_, child)| *child == v) {
                tests |= PathTest::Present.bit();
            }
            if related.iter().any(|(ancestor, _)| *ancestor == v) {
                tests |= PathTest::Dir.bit();
            }
            distinct_states(var.key, tests)
        } else {
            vec![0, 1]
        };
        is_shared[v] = true;
        shared.push((v, values));
    }
    fold_free(&mut nodes, &vars, &is_shared);
    let mut total: usize = 1;
    for (_, values) in &shared {
        total = total.saturating_mul(values.len());
    }
    if total > MAX_ASSIGNMENTS {
        return Outcome::TooComplex;
    }
    let mut fixed: Vec<Option<usize>> = vec![None; vars.len()];
    let (mut can_true, mut can_false) = (false, false);
    // From the last assignment down: the states come in `STATES` order,
    // plain missing paths first, so a line of checks that each need a path
    // to be there (the common proof) finds its passing assignment at once
    // instead of after every other one. Any order visits the same set.
    for index in (0..total).rev() {
        let mut rest = index;
        for (v, values) in &shared {
            fixed[*v] = Some(values[rest % values.len()]);
            rest /= values.len();
        }
        let consistent =
            related
                .iter()
                .all(|(ancestor, path)| match (fixed[*ancestor], fixed[*path]) {
                    (Some(a), Some(p)) => !PathTest::Present.holds(&STATES[p]) || STATES[a].dir,
                    _ => true,
                });
        if !consistent {
            continue;
        }
        let (t, f) = eval(&nodes, root, &vars, &fixed);
        can_true |= t;
        can_false |= f;
        if can_true && can_false {
            return Outcome::Depends;
        }
    }
    Outcome::Fixed(can_true)
}

/// The plan's success condition, given each pipeline's deciding condition
/// (in plan order), through the plan's own fold.
pub(crate) fn plan_condition<'a>(plan: &'a ProofPlan, deciding: &'a [Cond]) -> Formula<'a> {
    struct Symbolic<'a> {
        pipelines: Vec<(&'a Pipeline, &'a Cond)>,
    }
    impl<'a> StatusDomain for Symbolic<'a> {
        type Status = Formula<'a>;
        fn pipeline(&mut self, pipeline: &Pipeline) -> Formula<'a> {
            match self
                .pipelines
                .iter()
                .find(|(p, _)| std::ptr::eq(*p, pipeline))
            {
                Some((_, cond)) => Formula::Leaf(cond),
                None => Formula::Leaf(&FALSE),
            }
        }
        fn negate(&mut self, _: &Pipeline, status: Formula<'a>) -> Formula<'a> {
            Formula::Not(Box::new(status))
        }
        fn and_then(
            &mut self,
            left: Formula<'a>,
            right: &mut dyn FnMut(&mut Self) -> Formula<'a>,
        ) -> Formula<'a> {
            Formula::And(Box::new(left), Box::new(right(self)))
        }
        fn or_else(
            &mut self,
            left: Formula<'a>,
            right: &mut dyn FnMut(&mut Self) -> Formula<'a>,
        ) -> Formula<'a> {
            Formula::Or(Box::new(left), Box::new(right(self)))
        }
    }
    let pipelines = plan
        .pipelines()
        .map(|(_, p)| p)
        .zip(deciding.iter())
        .collect();
    plan.fold(&mut Symbolic { pipelines })
}

/// A pipeline the fold does not know (never happens) decides nothing.
static FALSE: Cond = Cond::Const(false);

#[cfg(test)]
mod tests {
    use super::*;

    fn p(test: PathTest, path: &str) -> Cond {
        Cond::path(test, path)
    }

    fn u(key: &str) -> Cond {
        Cond::Unknown(key.into())
    }

    #[test]
    fn fixed_and_dependent_conditions() {
        use PathTest::*;
        assert_eq!(outcome(&Cond::Const(true)), Outcome::Fixed(true));
        assert_eq!(outcome(&u("grep")), Outcome::Depends);
        assert_eq!(outcome(&u("g").or(u("g").not())), Outcome::Fixed(true));
        assert_eq!(outcome(&u("g").or(u("h").not())), Outcome::Depends);
        assert_eq!(
            outcome(&p(Exists, "f").or(p(File, "f").not())),
            Outcome::Fixed(true)
        );
        assert_eq!(
            outcome(&p(File, "f").or(p(Exists, "f").not())),
            Outcome::Depends
        );
        assert_eq!(
            outcome(&p(Exists, "./f").or(p(Exists, "f").not())),
            Outcome::Fixed(true)
        );
        assert_eq!(outcome(&p(Exists, ".")), Outcome::Fixed(true));
        assert_eq!(outcome(&p(Dir, "./")), Outcome::Fixed(true));
        assert_eq!(outcome(&p(Exists, "")), Outcome::Fixed(false));
        assert_eq!(outcome(&p(File, "x/")), Outcome::Fixed(false));
        // A path below another needs it to be a directory.
        assert_eq!(
            outcome(&p(Exists, "a/b").not().or(p(Exists, "a"))),
            Outcome::Fixed(true)
        );
        assert_eq!(
            outcome(&p(Exists, "a/b").or(p(Exists, "a"))),
            Outcome::Depends
        );
        // `cat f || test ! -f f`: only an unreadable file could fail it,
        // a state not modelled: called fixed (refused), the cautious side.
        assert_eq!(
            outcome(&p(ReadableFile, "f").or(p(File, "f").not())),
            Outcome::Fixed(true)
        );
        assert_eq!(
            outcome(&p(ReadableFile, "f").or(p(Dir, "f"))),
            Outcome::Depends
        );
        assert_eq!(
            outcome(&p(Present, "f").or(p(Exists, "f").not())),
            Outcome::Fixed(true)
        );
    }

    #[test]
    fn many_independent_checks_stay_cheap() {
        let many = Cond::all((0..60).map(|i| p(PathTest::File, &format!("f{i}"))));
        assert_eq!(outcome(&many), Outcome::Depends);
        let repeated = Cond::all((0..20).map(|i| u(&format!("u{i}")).or(u(&format!("u{i}")))));
        assert_eq!(outcome(&repeated), Outcome::TooComplex);
    }
}
