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

use std::collections::HashMap;

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
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let key = if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    };
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

#[derive(Default)]
struct Vars {
    unknown: HashMap<String, usize>,
    paths: HashMap<String, usize>,
}

fn count(cond: &Cond, vars: &mut Vars) {
    match cond {
        Cond::Const(_) => {}
        Cond::Unknown(key) => *vars.unknown.entry(key.clone()).or_default() += 1,
        Cond::Path(_, key) => *vars.paths.entry(key.clone()).or_default() += 1,
        Cond::Not(a) => count(a, vars),
        Cond::And(a, b) | Cond::Or(a, b) => {
            count(a, vars);
            count(b, vars);
        }
    }
}

fn is_ancestor(ancestor: &str, path: &str) -> bool {
    ancestor != path
        && (ancestor == "."
            || path
                .strip_prefix(ancestor)
                .is_some_and(|rest| rest.starts_with('/')))
}

struct Assignment {
    unknown: HashMap<String, bool>,
    paths: HashMap<String, usize>,
}

/// (can be true, can be false) under `a`; variables not in `a` occur once
/// and are free, so sub-results combine exactly.
fn eval(cond: &Cond, a: &Assignment) -> (bool, bool) {
    match cond {
        Cond::Const(b) => (*b, !*b),
        Cond::Unknown(key) => match a.unknown.get(key) {
            Some(v) => (*v, !*v),
            None => (true, true),
        },
        Cond::Path(test, key) => match a.paths.get(key) {
            Some(s) => {
                let v = test.holds(&STATES[*s]);
                (v, !v)
            }
            None => domain(key).fold((false, false), |(t, f), s| {
                let v = test.holds(&STATES[s]);
                (t || v, f || !v)
            }),
        },
        Cond::Not(inner) => {
            let (t, f) = eval(inner, a);
            (f, t)
        }
        Cond::And(x, y) => {
            let (tx, fx) = eval(x, a);
            let (ty, fy) = eval(y, a);
            (tx && ty, fx || fy)
        }
        Cond::Or(x, y) => {
            let (tx, fx) = eval(x, a);
            let (ty, fy) = eval(y, a);
            (tx || ty, fx && fy)
        }
    }
}

/// Whether `cond` can both hold and fail.
pub(crate) fn outcome(cond: &Cond) -> Outcome {
    let mut vars = Vars::default();
    count(cond, &mut vars);
    let shared_unknown: Vec<&String> = vars
        .unknown
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(k, _)| k)
        .collect();
    let all_paths: Vec<&String> = vars.paths.keys().collect();
    let shared_paths: Vec<&String> = vars
        .paths
        .iter()
        .filter(|(key, n)| {
            **n > 1
                || all_paths
                    .iter()
                    .any(|other| is_ancestor(other, key) || is_ancestor(key, other))
        })
        .map(|(k, _)| k)
        .collect();
    let mut total: usize = 1usize
        .checked_shl(shared_unknown.len() as u32)
        .unwrap_or(usize::MAX);
    if shared_unknown.len() >= usize::BITS as usize {
        return Outcome::TooComplex;
    }
    for key in &shared_paths {
        total = total.saturating_mul(domain(key).len());
    }
    if total > MAX_ASSIGNMENTS {
        return Outcome::TooComplex;
    }
    let (mut can_true, mut can_false) = (false, false);
    for index in 0..total {
        let mut rest = index;
        let mut assignment = Assignment {
            unknown: HashMap::new(),
            paths: HashMap::new(),
        };
        for key in &shared_unknown {
            assignment.unknown.insert((*key).clone(), rest % 2 == 1);
            rest /= 2;
        }
        for key in &shared_paths {
            let range = domain(key);
            assignment
                .paths
                .insert((*key).clone(), range.start + rest % range.len());
            rest /= range.len();
        }
        // A path below another exists only inside a directory.
        let consistent = assignment.paths.iter().all(|(key, s)| {
            let present = PathTest::Present.holds(&STATES[*s]);
            !present
                || assignment
                    .paths
                    .iter()
                    .filter(|(other, _)| is_ancestor(other, key))
                    .all(|(_, a)| STATES[*a].dir)
        });
        if !consistent {
            continue;
        }
        let (t, f) = eval(cond, &assignment);
        can_true |= t;
        can_false |= f;
        if can_true && can_false {
            return Outcome::Depends;
        }
    }
    if can_true {
        Outcome::Fixed(true)
    } else {
        Outcome::Fixed(false)
    }
}

/// The plan's success condition, given each pipeline's deciding condition
/// (in plan order), through the plan's own fold.
pub(crate) fn plan_condition(plan: &ProofPlan, deciding: &[Cond]) -> Cond {
    struct Symbolic<'a> {
        pipelines: Vec<(&'a Pipeline, &'a Cond)>,
    }
    impl StatusDomain for Symbolic<'_> {
        type Status = Cond;
        fn pipeline(&mut self, pipeline: &Pipeline) -> Cond {
            self.pipelines
                .iter()
                .find(|(p, _)| std::ptr::eq(*p, pipeline))
                .map_or(Cond::Const(false), |(_, c)| (*c).clone())
        }
        fn negate(&mut self, status: Cond) -> Cond {
            status.not()
        }
        fn and_then(&mut self, left: Cond, right: &mut dyn FnMut(&mut Self) -> Cond) -> Cond {
            left.and(right(self))
        }
        fn or_else(&mut self, left: Cond, right: &mut dyn FnMut(&mut Self) -> Cond) -> Cond {
            left.or(right(self))
        }
    }
    let pipelines = plan
        .pipelines()
        .map(|(_, p)| p)
        .zip(deciding.iter())
        .collect();
    plan.fold(&mut Symbolic { pipelines })
}

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
