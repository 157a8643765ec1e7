//! The formula parser: TD3's statements, operators and calls, bounded in depth, operators,
//! statements and names.

use super::names::{self, FormulaKind, Func, Name, Var};
use super::{FormulaError, MAX_FORMULA_DEPTH, MAX_FORMULA_OPERATORS};

/// The most statements a formula holds.
pub const MAX_STATEMENTS: usize = 64;
/// The most distinct names (variables and assigned names) a formula uses.
pub const MAX_NAMES: usize = 32;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Expr {
    Num(f64),
    /// A name, resolved through the formula's slots once the whole text is read.
    Name(u8),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
    Call(Func, Vec<Expr>),
    Assign(u8, Box<Expr>),
    /// `(a; b; c)`: each in turn, the value of the last.
    Block(Vec<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

/// What a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    /// A variable of the result.
    Var(Var),
    /// A name the formula assigns; it starts as the variable it shadows, if any.
    Local(Option<Var>),
}

/// A parsed formula: its statements and what each name stands for.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Program {
    pub statements: Vec<Expr>,
    pub names: Vec<String>,
    pub slots: Vec<Slot>,
}

pub(super) struct Parser<'a> {
    text: &'a str,
    kind: FormulaKind,
    pos: usize,
    /// Where the last token read ends.
    end: usize,
    depth: u32,
    operators: u32,
    names: Vec<String>,
    assigned: Vec<bool>,
}

impl<'a> Parser<'a> {
    pub(super) fn new(text: &'a str, kind: FormulaKind) -> Parser<'a> {
        Parser {
            text,
            kind,
            pos: 0,
            end: 0,
            depth: 0,
            operators: 0,
            names: Vec::new(),
            assigned: Vec::new(),
        }
    }

    fn error(&self, message: &str) -> FormulaError {
        FormulaError::Syntax {
            at: self.pos,
            message: message.to_owned(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.text[self.pos..].starts_with(token) {
            self.pos += token.len();
            self.end = self.pos;
            true
        } else {
            false
        }
    }

    /// A word operator (`and`, `or`, `not`, `is`), in any case, not the start of a name.
    fn eat_word(&mut self, word: &str) -> bool {
        self.skip_ws();
        let rest = &self.text.as_bytes()[self.pos..];
        let matches = rest.len() >= word.len()
            && rest[..word.len()].eq_ignore_ascii_case(word.as_bytes())
            && !rest
                .get(word.len())
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
        if matches {
            self.pos += word.len();
            self.end = self.pos;
        }
        matches
    }

    /// The whole text: statements separated by `;` or line breaks; the formula's value is
    /// the last one's.
    pub(super) fn program(mut self) -> Result<Program, FormulaError> {
        let mut statements = Vec::new();
        loop {
            while self
                .peek()
                .is_some_and(|b| b.is_ascii_whitespace() || b == b';')
            {
                self.pos += 1;
            }
            if self.pos >= self.text.len() {
                break;
            }
            if statements.len() == MAX_STATEMENTS {
                return Err(self.error(&format!(
                    "the formula has more than {MAX_STATEMENTS} statements"
                )));
            }
            statements.push(self.expr()?);
            // A statement ends at a `;`, a line break or the end of the text.
            self.pos = self.end;
            while self
                .peek()
                .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\r'))
            {
                self.pos += 1;
            }
            if !matches!(self.peek(), None | Some(b';' | b'\n')) {
                return Err(self.error("unexpected text after the formula"));
            }
        }
        if statements.is_empty() {
            return Err(self.error("the formula is empty"));
        }
        let mut slots = Vec::with_capacity(self.names.len());
        for (name, &assigned) in self.names.iter().zip(&self.assigned) {
            let var = match names::lookup(name, self.kind) {
                Name::Var(var) => Some(var),
                // An overall score may name its own values as it likes.
                Name::NotRecorded(_) if assigned && self.kind == FormulaKind::OverallScore => None,
                Name::NotRecorded(why) => {
                    return Err(FormulaError::Unavailable {
                        name: name.clone(),
                        why: why.to_owned(),
                    });
                }
                Name::Unknown => None,
            };
            slots.push(match (assigned, var) {
                (true, Some(list)) if list.is_list() => {
                    return Err(FormulaError::Type(format!(
                        "`{name}` is a list and cannot be assigned"
                    )));
                }
                (true, shadowed) => Slot::Local(shadowed),
                (false, Some(var)) => Slot::Var(var),
                (false, None) => return Err(FormulaError::UnknownVariable(name.clone())),
            });
        }
        let program = Program {
            statements,
            names: self.names,
            slots,
        };
        for statement in &program.statements {
            program.number(statement)?;
        }
        Ok(program)
    }

    /// One level deeper, refused past [`MAX_FORMULA_DEPTH`].
    fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, FormulaError>,
    ) -> Result<T, FormulaError> {
        if self.depth >= MAX_FORMULA_DEPTH {
            return Err(self.error(&format!(
                "the formula nests deeper than {MAX_FORMULA_DEPTH} levels"
            )));
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    pub(super) fn expr(&mut self) -> Result<Expr, FormulaError> {
        self.nested(Self::or)
    }

    /// `left op right`, refused past [`MAX_FORMULA_OPERATORS`].
    fn bin(&mut self, op: Op, left: Expr, right: Expr) -> Result<Expr, FormulaError> {
        self.operators += 1;
        if self.operators > MAX_FORMULA_OPERATORS {
            return Err(self.error(&format!(
                "the formula has more than {MAX_FORMULA_OPERATORS} operators"
            )));
        }
        Ok(Expr::Bin(op, Box::new(left), Box::new(right)))
    }

    fn or(&mut self) -> Result<Expr, FormulaError> {
        let mut left = self.and()?;
        while self.eat("||") || self.eat_word("or") {
            let right = self.and()?;
            left = self.bin(Op::Or, left, right)?;
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, FormulaError> {
        let mut left = self.comparison()?;
        while self.eat("&&") || self.eat_word("and") {
            let right = self.comparison()?;
            left = self.bin(Op::And, left, right)?;
        }
        Ok(left)
    }

    fn comparison(&mut self) -> Result<Expr, FormulaError> {
        let left = self.sum()?;
        for (token, op) in [
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("=", Op::Eq),
            ("<", Op::Lt),
            (">", Op::Gt),
        ] {
            if self.eat(token) {
                let right = self.sum()?;
                return self.bin(op, left, right);
            }
        }
        if self.eat_word("is") {
            let right = self.sum()?;
            return self.bin(Op::Eq, left, right);
        }
        Ok(left)
    }

    fn sum(&mut self) -> Result<Expr, FormulaError> {
        let mut left = self.product()?;
        loop {
            let op = if self.eat("+") {
                Op::Add
            } else if self.eat("-") {
                Op::Sub
            } else {
                return Ok(left);
            };
            let right = self.product()?;
            left = self.bin(op, left, right)?;
        }
    }

    fn product(&mut self) -> Result<Expr, FormulaError> {
        let mut left = self.unary()?;
        loop {
            let op = if self.eat("*") {
                Op::Mul
            } else if self.eat("/") {
                Op::Div
            } else if self.eat("%") {
                Op::Mod
            } else {
                return Ok(left);
            };
            let right = self.unary()?;
            left = self.bin(op, left, right)?;
        }
    }

    /// Signs and `not` bind looser than `^`: `-2^2` is -4.
    fn unary(&mut self) -> Result<Expr, FormulaError> {
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.nested(Self::unary)?)));
        }
        if self.eat("+") {
            return self.nested(Self::unary);
        }
        if self.eat("!") || self.eat_word("not") {
            return Ok(Expr::Not(Box::new(self.nested(Self::unary)?)));
        }
        self.power()
    }

    /// `a ^ b`, to the right: `2^3^2` is 2^9.
    fn power(&mut self) -> Result<Expr, FormulaError> {
        let base = self.atom()?;
        if self.eat("^") {
            let exponent = self.nested(Self::unary)?;
            return self.bin(Op::Pow, base, exponent);
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Expr, FormulaError> {
        self.skip_ws();
        if self.eat("(") {
            return self.bracket();
        }
        let bytes = self.text.as_bytes();
        let start = self.pos;
        match bytes.get(self.pos) {
            Some(b) if b.is_ascii_digit() || *b == b'.' => {
                while bytes
                    .get(self.pos)
                    .is_some_and(|b| b.is_ascii_digit() || *b == b'.')
                {
                    self.pos += 1;
                }
                self.end = self.pos;
                let text = &self.text[start..self.pos];
                text.parse::<f64>()
                    .map(Expr::Num)
                    .map_err(|_| FormulaError::Syntax {
                        at: start,
                        message: format!("not a number: {text:?}"),
                    })
            }
            Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {
                while bytes
                    .get(self.pos)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                {
                    self.pos += 1;
                }
                self.end = self.pos;
                let name = self.text[start..self.pos].to_ascii_lowercase();
                if self.eat("(") {
                    self.call(&name)
                } else {
                    self.slot(name).map(Expr::Name)
                }
            }
            _ => Err(self.error("expected a number, a variable, a function or `(`")),
        }
    }

    /// After `(`: an expression, or statements separated by `;`, then `)`.
    fn bracket(&mut self) -> Result<Expr, FormulaError> {
        let mut statements = vec![self.expr()?];
        while self.eat(";") {
            if statements.len() == MAX_STATEMENTS {
                return Err(self.error(&format!(
                    "the formula has more than {MAX_STATEMENTS} statements"
                )));
            }
            statements.push(self.expr()?);
        }
        if !self.eat(")") {
            return Err(self.error("expected `)`"));
        }
        Ok(if statements.len() == 1 {
            statements.remove(0)
        } else {
            Expr::Block(statements)
        })
    }

    /// The slot of a name, made on its first use.
    fn slot(&mut self, name: String) -> Result<u8, FormulaError> {
        let index = match self.names.iter().position(|n| *n == name) {
            Some(index) => index,
            None => {
                if self.names.len() == MAX_NAMES {
                    return Err(
                        self.error(&format!("the formula uses more than {MAX_NAMES} names"))
                    );
                }
                self.names.push(name);
                self.assigned.push(false);
                self.names.len() - 1
            }
        };
        u8::try_from(index).map_err(|_| self.error("too many names"))
    }

    /// A quoted name: `assign("points", ...)`.
    fn quoted_name(&mut self) -> Result<String, FormulaError> {
        self.skip_ws();
        let quote = match self.peek() {
            Some(q @ (b'"' | b'\'')) => q,
            _ => {
                return Err(self.error("assign takes a quoted name first: assign(\"name\", value)"));
            }
        };
        let start = self.pos + 1;
        let Some(length) = self.text.as_bytes()[start..]
            .iter()
            .position(|&b| b == quote)
        else {
            return Err(self.error("the quoted name is not closed"));
        };
        let name = &self.text[start..start + length];
        let valid = name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid {
            return Err(self.error(&format!("{name:?} is not a name")));
        }
        self.pos = start + length + 1;
        self.end = self.pos;
        Ok(name.to_ascii_lowercase())
    }

    fn call(&mut self, name: &str) -> Result<Expr, FormulaError> {
        if let Some((_, why)) = names::REFUSED_FUNCTIONS.iter().find(|(n, _)| *n == name) {
            return Err(FormulaError::Unavailable {
                name: name.to_owned(),
                why: (*why).to_owned(),
            });
        }
        let Some((func, least, most)) = names::function(name) else {
            return Err(FormulaError::UnknownFunction(name.to_owned()));
        };
        if func == Func::Assign {
            let target = self.quoted_name()?;
            let slot = self.slot(target)?;
            if let Some(flag) = self.assigned.get_mut(usize::from(slot)) {
                *flag = true;
            }
            if !self.eat(",") {
                return Err(self.error("expected `,` after the name"));
            }
            let value = self.expr()?;
            if !self.eat(")") {
                return Err(self.error("expected `)`"));
            }
            return Ok(Expr::Assign(slot, Box::new(value)));
        }
        let mut args = Vec::new();
        if !self.eat(")") {
            loop {
                args.push(self.expr()?);
                if self.eat(")") {
                    break;
                }
                if !self.eat(",") {
                    return Err(self.error("expected `,` or `)`"));
                }
            }
        }
        let count = args.len();
        if count < usize::from(least) || most.is_some_and(|most| count > usize::from(most)) {
            let expected = match most {
                Some(most) if most == least => most.to_string(),
                Some(most) => format!("{least} to {most}"),
                None => format!("{least} or more"),
            };
            return Err(FormulaError::Arity {
                function: name.to_owned(),
                expected,
                got: count,
            });
        }
        Ok(Expr::Call(func, args))
    }
}

impl Program {
    /// Whether an expression gives a list (a list variable, or `top`, `bottom` or
    /// `setListLength`).
    pub(super) fn is_list(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Name(slot) => {
                matches!(self.slots.get(usize::from(*slot)), Some(Slot::Var(v)) if v.is_list())
            }
            Expr::Call(Func::Top | Func::Bottom | Func::SetListLength, _) => true,
            _ => false,
        }
    }

    /// What to call a list expression in a refusal.
    fn list_name(&self, expr: &Expr) -> String {
        match expr {
            Expr::Name(slot) => self
                .names
                .get(usize::from(*slot))
                .map_or_else(|| "a list".to_owned(), |n| format!("`{n}`")),
            Expr::Call(func, _) => format!("`{}(...)`", names::function_name(*func)),
            _ => "a list".to_owned(),
        }
    }

    /// Checks that `expr` gives a number, with lists only inside the list functions.
    fn number(&self, expr: &Expr) -> Result<(), FormulaError> {
        if self.is_list(expr) {
            return Err(FormulaError::Type(format!(
                "{} is a list: use it inside a list function (sum, product, average, count, max, min, top, bottom, index, setListLength)",
                self.list_name(expr)
            )));
        }
        match expr {
            Expr::Num(_) | Expr::Name(_) => Ok(()),
            Expr::Neg(inner) | Expr::Not(inner) | Expr::Assign(_, inner) => self.number(inner),
            Expr::Bin(_, a, b) => {
                self.number(a)?;
                self.number(b)
            }
            Expr::Block(statements) => statements.iter().try_for_each(|s| self.number(s)),
            Expr::Call(
                Func::Max | Func::Min | Func::Sum | Func::Product | Func::Average | Func::Count,
                args,
            ) => args.iter().try_for_each(|a| {
                if self.is_list(a) {
                    self.list(Func::Sum, a)
                } else {
                    self.number(a)
                }
            }),
            Expr::Call(func @ Func::Index, args) => self.list_args(*func, args),
            Expr::Call(_, args) => args.iter().try_for_each(|a| self.number(a)),
        }
    }

    /// `f(k, list)`: a number, then a list.
    fn list_args(&self, func: Func, args: &[Expr]) -> Result<(), FormulaError> {
        if let Some(k) = args.first() {
            self.number(k)?;
        }
        match args.get(1) {
            Some(list) => self.list(func, list),
            None => Ok(()),
        }
    }

    /// Checks that `expr` gives a list.
    fn list(&self, func: Func, expr: &Expr) -> Result<(), FormulaError> {
        if !self.is_list(expr) {
            return Err(FormulaError::Type(format!(
                "`{}` takes a list second, such as `scores` (an overall score's list of tournament scores)",
                names::function_name(func)
            )));
        }
        match expr {
            Expr::Call(inner, args) => self.list_args(*inner, args),
            _ => Ok(()),
        }
    }
}
