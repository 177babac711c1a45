//! Walks brush-parser's syntax tree into the [`CommandLine`] summary. The
//! limits that make the parser safe to call (bounds, deadline, worker cap)
//! are in [`crate::guard`], which calls [`walk_line`].

use std::panic::{AssertUnwindSafe, catch_unwind};

use brush_parser::ParserOptions;
use brush_parser::ast::{
    self, AndOr, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList,
    ExtendedTestExpr, IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, Pipeline,
    SeparatorOperator,
};

use crate::word::{WordAnalysis, analyze_heredoc, analyze_word};
use crate::{
    Assignment, CommandLine, Redirect, RedirectOp, Separator, SimpleCommand, Word, WordFlags,
};

/// How many substitutions deep nested command texts are parsed.
const MAX_SUBSTITUTION_DEPTH: usize = 8;
/// Parses `line` and walks it into the summary (the guard has already
/// checked its shape).
pub(crate) fn walk_line(line: &str) -> CommandLine {
    let mut walker = Walker {
        opts: parser_options(),
        out: CommandLine::default(),
        depth: 0,
    };
    walker.out.constructs.newline = line.contains(['\n', '\r']);
    match parse_program(line, &walker.opts) {
        Ok(program) => walker.program(&program, &Context::top()),
        Err(reason) => walker.fail(reason),
    }
    walker.out
}

fn parser_options() -> ParserOptions {
    // bash defaults, plus extglob so `@(…)` patterns are recognised as globs.
    ParserOptions {
        enable_extended_globbing: true,
        ..ParserOptions::default()
    }
}

fn parse_program(source: &str, opts: &ParserOptions) -> Result<ast::Program, String> {
    // The parser is third-party code: a panic in it must read as "not parsed",
    // never take the caller down.
    let result = catch_unwind(AssertUnwindSafe(|| {
        // `&[u8]` is already a `BufRead`: no 8 KiB buffer to allocate and
        // free on every line (a measurable share of a proof's validation).
        let mut parser = brush_parser::Parser::new(source.as_bytes(), opts);
        parser.parse_program()
    }));
    match result {
        Ok(Ok(program)) => Ok(program),
        Ok(Err(e)) => Err(format!("syntax error: {e}")),
        Err(_) => Err("the shell parser failed on this line".to_owned()),
    }
}

/// What the enclosing constructs impose on the commands inside them.
#[derive(Clone)]
struct Context {
    nested: bool,
    background: bool,
    inherited_redirects: Vec<Redirect>,
}

impl Context {
    fn top() -> Self {
        Self {
            nested: false,
            background: false,
            inherited_redirects: Vec::new(),
        }
    }

    fn inner(&self) -> Self {
        Self {
            nested: true,
            ..self.clone()
        }
    }
}

struct Walker {
    opts: ParserOptions,
    out: CommandLine,
    depth: usize,
}

impl Walker {
    fn fail(&mut self, reason: String) {
        self.out.constructs.parse_error = true;
        if self.out.parse_error.is_none() {
            self.out.parse_error = Some(reason);
        }
    }

    fn separator(&mut self, ctx: &Context, sep: Separator) {
        if !ctx.nested {
            self.out.separators.push(sep);
        }
    }

    fn program(&mut self, program: &ast::Program, ctx: &Context) {
        for (i, list) in program.complete_commands.iter().enumerate() {
            let follows = if i > 0 {
                self.separator(ctx, Separator::Newline);
                Some(Separator::Newline)
            } else {
                None
            };
            self.compound_list(list, ctx, follows);
        }
    }

    fn compound_list(
        &mut self,
        list: &CompoundList,
        ctx: &Context,
        first_follows: Option<Separator>,
    ) {
        let mut follows = first_follows;
        let count = list.0.len();
        for (i, ast::CompoundListItem(and_or, sep)) in list.0.iter().enumerate() {
            let background = matches!(sep, SeparatorOperator::Async);
            let item_ctx = if background {
                self.out.constructs.background = true;
                Context {
                    background: true,
                    ..ctx.clone()
                }
            } else {
                ctx.clone()
            };
            self.and_or(and_or, &item_ctx, follows);
            follows = if background {
                self.separator(ctx, Separator::Background);
                Some(Separator::Background)
            } else if i + 1 < count {
                self.separator(ctx, Separator::Semicolon);
                Some(Separator::Semicolon)
            } else {
                None
            };
        }
    }

    fn and_or(&mut self, list: &ast::AndOrList, ctx: &Context, follows: Option<Separator>) {
        self.pipeline(&list.first, ctx, follows);
        for next in &list.additional {
            let (sep, pipeline) = match next {
                AndOr::And(p) => (Separator::And, p),
                AndOr::Or(p) => (Separator::Or, p),
            };
            self.separator(ctx, sep);
            self.pipeline(pipeline, ctx, Some(sep));
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline, ctx: &Context, follows: Option<Separator>) {
        let flags = PipelineFlags {
            negated: pipeline.bang,
            timed: pipeline.timed.is_some(),
        };
        self.out.constructs.negation |= flags.negated;
        self.out.constructs.timed |= flags.timed;
        for (i, command) in pipeline.seq.iter().enumerate() {
            let follows = if i == 0 {
                follows
            } else {
                self.separator(ctx, Separator::Pipe);
                Some(Separator::Pipe)
            };
            self.command(command, ctx, follows, flags);
        }
    }

    fn command(
        &mut self,
        command: &Command,
        ctx: &Context,
        follows: Option<Separator>,
        flags: PipelineFlags,
    ) {
        match command {
            Command::Simple(simple) => self.simple(simple, ctx, follows, flags),
            Command::Compound(compound, redirects) => {
                let inner = self.with_redirects(ctx, redirects.as_ref().map(|r| r.0.as_slice()));
                self.compound(compound, &inner, flags);
            }
            Command::Function(definition) => {
                self.out.constructs.function_definition = true;
                self.out.functions.push(definition.fname.value.clone());
                let ast::FunctionBody(body, redirects) = &definition.body;
                let inner = self.with_redirects(ctx, redirects.as_ref().map(|r| r.0.as_slice()));
                self.compound(body, &inner, flags);
            }
            Command::ExtendedTest(test, redirects) => {
                self.out.constructs.extended_test = true;
                let inner = self.with_redirects(ctx, redirects.as_ref().map(|r| r.0.as_slice()));
                let mut args = Vec::new();
                self.test_words(&test.expr, &inner, &mut args);
                self.out.commands.push(SimpleCommand {
                    program: Some(static_word("[[")),
                    args,
                    assignments: Vec::new(),
                    redirects: inner.inherited_redirects.clone(),
                    nested: ctx.nested,
                    follows,
                    negated: flags.negated,
                    timed: flags.timed,
                    background: ctx.background,
                });
            }
        }
    }

    /// The context for a compound command's body: nested, with its redirections
    /// recorded and inherited by every command inside.
    fn with_redirects(&mut self, ctx: &Context, redirects: Option<&[IoRedirect]>) -> Context {
        let mut inner = ctx.inner();
        for redirect in redirects.unwrap_or_default() {
            let converted = self.redirect(redirect, ctx);
            inner.inherited_redirects.push(converted);
        }
        inner
    }

    /// The words of `[[ … ]]` in source order, operators included as static
    /// words (`-f`, `==`, `&&`, `!`), so callers see the test as written.
    fn test_words(&mut self, expr: &ExtendedTestExpr, ctx: &Context, args: &mut Vec<Word>) {
        match expr {
            ExtendedTestExpr::And(a, b) | ExtendedTestExpr::Or(a, b) => {
                let op = if matches!(expr, ExtendedTestExpr::And(..)) {
                    "&&"
                } else {
                    "||"
                };
                self.test_words(a, ctx, args);
                args.push(static_word(op));
                self.test_words(b, ctx, args);
            }
            ExtendedTestExpr::Not(a) => {
                args.push(static_word("!"));
                self.test_words(a, ctx, args);
            }
            ExtendedTestExpr::Parenthesized(a) => {
                args.push(static_word("("));
                self.test_words(a, ctx, args);
                args.push(static_word(")"));
            }
            ExtendedTestExpr::UnaryTest(predicate, w) => {
                args.push(static_word(&predicate.to_string()));
                let word = self.word(&w.value, ctx);
                args.push(word);
            }
            ExtendedTestExpr::BinaryTest(predicate, a, b) => {
                let a = self.word(&a.value, ctx);
                args.push(a);
                args.push(static_word(&predicate.to_string()));
                let b = self.word(&b.value, ctx);
                args.push(b);
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand, ctx: &Context, flags: PipelineFlags) {
        let c = &mut self.out.constructs;
        match compound {
            CompoundCommand::BraceGroup(group) => {
                c.brace_group = true;
                self.compound_list(&group.list, ctx, None);
            }
            CompoundCommand::Subshell(sub) => {
                c.subshell = true;
                self.compound_list(&sub.list, ctx, None);
            }
            CompoundCommand::ForClause(clause) => {
                c.control_flow = true;
                for value in clause.values.iter().flatten() {
                    let word = self.word(&value.value, ctx);
                    self.out.loose_words.push(word);
                }
                self.compound_list(&clause.body.list, ctx, None);
            }
            CompoundCommand::ArithmeticForClause(clause) => {
                c.control_flow = true;
                c.arithmetic_expansion = true;
                for expr in [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&expr.value, ctx);
                }
                self.compound_list(&clause.body.list, ctx, None);
            }
            CompoundCommand::CaseClause(clause) => {
                c.control_flow = true;
                let subject = self.word(&clause.value.value, ctx);
                self.out.loose_words.push(subject);
                for item in &clause.cases {
                    for pattern in &item.patterns {
                        let word = self.word(&pattern.value, ctx);
                        self.out.loose_words.push(word);
                    }
                    if let Some(list) = &item.cmd {
                        self.compound_list(list, ctx, None);
                    }
                }
            }
            CompoundCommand::IfClause(clause) => {
                c.control_flow = true;
                self.compound_list(&clause.condition, ctx, None);
                self.compound_list(&clause.then, ctx, None);
                for branch in clause.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        self.compound_list(condition, ctx, None);
                    }
                    self.compound_list(&branch.body, ctx, None);
                }
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                c.control_flow = true;
                self.compound_list(&clause.0, ctx, None);
                self.compound_list(&clause.1.list, ctx, None);
            }
            CompoundCommand::Arithmetic(arith) => {
                c.arithmetic_expansion = true;
                self.arithmetic(&arith.expr.value, ctx);
            }
            CompoundCommand::Coprocess(coproc) => {
                c.coprocess = true;
                c.background = true;
                let inner = Context {
                    background: true,
                    ..ctx.inner()
                };
                self.command(&coproc.body, &inner, None, flags);
            }
        }
    }

    /// Arithmetic text: only substitutions inside it can run commands.
    fn arithmetic(&mut self, text: &str, ctx: &Context) {
        if text.contains(['$', '`']) {
            let _ = self.word(text, ctx);
        }
    }

    fn simple(
        &mut self,
        simple: &ast::SimpleCommand,
        ctx: &Context,
        follows: Option<Separator>,
        flags: PipelineFlags,
    ) {
        let mut command = SimpleCommand {
            program: None,
            args: Vec::new(),
            assignments: Vec::new(),
            redirects: ctx.inherited_redirects.clone(),
            nested: ctx.nested,
            follows,
            negated: flags.negated,
            timed: flags.timed,
            background: ctx.background,
        };
        // Commands found inside this one's words are listed after it.
        let index = self.out.commands.len();
        self.out.commands.push(SimpleCommand::default());

        for item in simple.prefix.iter().flat_map(|p| p.0.iter()) {
            self.item(item, ctx, &mut command, true);
        }
        if let Some(name) = &simple.word_or_name {
            let word = self.word(&name.value, ctx);
            let c = &mut self.out.constructs;
            if word.value.is_none() {
                c.dynamic_command_name = true;
            }
            c.glob_in_command_position |= word.flags.glob;
            c.brace_in_command_position |= word.flags.brace_expansion;
            c.ansi_c_in_command_position |= word.flags.ansi_c;
            command.program = Some(word);
        }
        for item in simple.suffix.iter().flat_map(|s| s.0.iter()) {
            self.item(item, ctx, &mut command, false);
        }
        if let Some(slot) = self.out.commands.get_mut(index) {
            *slot = command;
        }
    }

    fn item(
        &mut self,
        item: &CommandPrefixOrSuffixItem,
        ctx: &Context,
        command: &mut SimpleCommand,
        prefix: bool,
    ) {
        match item {
            CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                let converted = self.redirect(redirect, ctx);
                command.redirects.push(converted);
            }
            CommandPrefixOrSuffixItem::Word(w) => {
                let word = self.word(&w.value, ctx);
                command.args.push(word);
            }
            CommandPrefixOrSuffixItem::AssignmentWord(assignment, w) => {
                if prefix {
                    self.out.constructs.assignment = true;
                    let converted = self.assignment(assignment, &w.value, ctx);
                    command.assignments.push(converted);
                } else {
                    // A declaration argument (`export X=1`, `alias ls=rm`).
                    let word = self.word(&w.value, ctx);
                    command.args.push(word);
                }
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                let word = self.process_substitution(kind, sub, ctx);
                command.args.push(word);
            }
        }
    }

    fn assignment(&mut self, assignment: &ast::Assignment, raw: &str, ctx: &Context) -> Assignment {
        let name = match &assignment.name {
            ast::AssignmentName::VariableName(name) => name.clone(),
            ast::AssignmentName::ArrayElementName(name, index) => format!("{name}[{index}]"),
        };
        let value = match &assignment.value {
            ast::AssignmentValue::Scalar(w) => self.word(&w.value, ctx),
            ast::AssignmentValue::Array(elements) => {
                for (index, element) in elements {
                    if let Some(index) = index {
                        let _ = self.word(&index.value, ctx);
                    }
                    let _ = self.word(&element.value, ctx);
                }
                let raw_value = raw.split_once('=').map_or(raw, |(_, v)| v);
                Word {
                    raw: raw_value.to_owned(),
                    value: None,
                    flags: WordFlags::default(),
                }
            }
        };
        Assignment {
            name,
            value,
            append: assignment.append,
        }
    }

    fn process_substitution(
        &mut self,
        kind: &ast::ProcessSubstitutionKind,
        sub: &ast::SubshellCommand,
        ctx: &Context,
    ) -> Word {
        self.out.constructs.process_substitution = true;
        let op = match kind {
            ast::ProcessSubstitutionKind::Read => "<",
            ast::ProcessSubstitutionKind::Write => ">",
        };
        self.compound_list(&sub.list, &ctx.inner(), None);
        Word {
            raw: format!("{op}({})", sub.list),
            value: None,
            flags: WordFlags {
                process_substitution: true,
                ..WordFlags::default()
            },
        }
    }

    fn redirect(&mut self, redirect: &IoRedirect, ctx: &Context) -> Redirect {
        let fd_of = |fd: &Option<i32>| fd.and_then(|n| u32::try_from(n).ok());
        let converted = match redirect {
            IoRedirect::File(fd, kind, target) => {
                let op = match kind {
                    IoFileRedirectKind::Read => RedirectOp::Read,
                    IoFileRedirectKind::Write => RedirectOp::Write,
                    IoFileRedirectKind::Append => RedirectOp::Append,
                    IoFileRedirectKind::ReadAndWrite => RedirectOp::ReadWrite,
                    IoFileRedirectKind::Clobber => RedirectOp::Clobber,
                    IoFileRedirectKind::DuplicateInput => RedirectOp::DuplicateInput,
                    IoFileRedirectKind::DuplicateOutput => RedirectOp::DuplicateOutput,
                };
                let target = match target {
                    IoFileRedirectTarget::Filename(w) | IoFileRedirectTarget::Duplicate(w) => {
                        self.word(&w.value, ctx)
                    }
                    IoFileRedirectTarget::Fd(n) => static_word(&n.to_string()),
                    IoFileRedirectTarget::ProcessSubstitution(kind, sub) => {
                        self.process_substitution(kind, sub, ctx)
                    }
                };
                Redirect {
                    fd: fd_of(fd),
                    op,
                    target,
                }
            }
            IoRedirect::HereDocument(fd, doc) => {
                self.out.constructs.heredoc = true;
                let op = if doc.remove_tabs {
                    RedirectOp::HereDocStripTabs
                } else {
                    RedirectOp::HereDoc
                };
                let target =
                    match analyze_heredoc(&doc.doc.value, doc.requires_expansion, &self.opts) {
                        Ok(analysis) => self.absorb(analysis, ctx),
                        Err(reason) => {
                            self.fail(reason);
                            Word {
                                raw: doc.doc.value.clone(),
                                value: None,
                                flags: WordFlags::default(),
                            }
                        }
                    };
                Redirect {
                    fd: fd_of(fd),
                    op,
                    target,
                }
            }
            IoRedirect::HereString(fd, w) => {
                self.out.constructs.herestring = true;
                let target = self.word(&w.value, ctx);
                Redirect {
                    fd: fd_of(fd),
                    op: RedirectOp::HereString,
                    target,
                }
            }
            IoRedirect::OutputAndError(w, append) => {
                let op = if *append {
                    RedirectOp::AppendOutputAndError
                } else {
                    RedirectOp::OutputAndError
                };
                let target = self.word(&w.value, ctx);
                Redirect {
                    fd: None,
                    op,
                    target,
                }
            }
        };
        self.out.constructs.redirect_writes |= converted.writes_file();
        self.out.redirects.push(converted.clone());
        converted
    }

    /// Analyses a word, records its constructs and walks the commands inside it.
    fn word(&mut self, raw: &str, ctx: &Context) -> Word {
        match analyze_word(raw, &self.opts) {
            Ok(analysis) => self.absorb(analysis, ctx),
            Err(reason) => {
                self.fail(reason);
                Word {
                    raw: raw.to_owned(),
                    value: None,
                    flags: WordFlags::default(),
                }
            }
        }
    }

    fn absorb(&mut self, analysis: WordAnalysis, ctx: &Context) -> Word {
        let WordAnalysis {
            word,
            nested_sources,
        } = analysis;
        let f = word.flags;
        let c = &mut self.out.constructs;
        c.command_substitution |= f.command_substitution;
        c.backticks |= f.backticks;
        c.parameter_expansion |= f.parameter_expansion;
        c.arithmetic_expansion |= f.arithmetic_expansion;
        c.ansi_c_string |= f.ansi_c;
        c.locale_string |= f.locale_string;
        c.glob |= f.glob;
        c.brace_expansion |= f.brace_expansion;
        c.tilde |= f.tilde;
        c.process_substitution |= f.process_substitution;
        for source in nested_sources {
            self.nested_source(&source, ctx);
        }
        word
    }

    /// Parses the text of a substitution and lists its commands as nested.
    fn nested_source(&mut self, source: &str, ctx: &Context) {
        if self.depth >= MAX_SUBSTITUTION_DEPTH {
            self.fail(format!(
                "substitutions nest more than {MAX_SUBSTITUTION_DEPTH} deep"
            ));
            return;
        }
        match parse_program(source, &self.opts) {
            Ok(program) => {
                self.depth += 1;
                let inner = Context {
                    nested: true,
                    background: ctx.background,
                    inherited_redirects: Vec::new(),
                };
                self.program(&program, &inner);
                self.depth -= 1;
            }
            Err(reason) => self.fail(format!("inside a substitution: {reason}")),
        }
    }
}

#[derive(Clone, Copy)]
struct PipelineFlags {
    negated: bool,
    timed: bool,
}

fn static_word(text: &str) -> Word {
    Word {
        raw: text.to_owned(),
        value: Some(text.to_owned()),
        flags: WordFlags::default(),
    }
}
