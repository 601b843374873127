//! Building LLVM-dialect text: fresh SSA names, an entry-block prologue for values every later
//! op may use (thread ids, layout bases), and nested regions.

pub struct Emitter {
    prologue: String,
    body: String,
    next: usize,
    depth: usize,
}

impl Default for Emitter {
    fn default() -> Self {
        Self::new()
    }
}

impl Emitter {
    pub fn new() -> Emitter {
        Emitter {
            prologue: String::new(),
            body: String::new(),
            next: 0,
            depth: 2,
        }
    }

    /// A fresh SSA name (`%vN`).
    pub fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%v{}", self.next)
    }

    /// A fresh number, for names of multi-result ops (`%rN:k`).
    pub fn fresh_raw(&mut self) -> String {
        self.next += 1;
        self.next.to_string()
    }

    fn indent(&self) -> String {
        "  ".repeat(self.depth)
    }

    pub fn line(&mut self, text: &str) {
        let indent = self.indent();
        self.body.push_str(&indent);
        self.body.push_str(text);
        self.body.push('\n');
    }

    /// `%v = rhs` in the body; returns `%v`.
    pub fn op(&mut self, rhs: &str) -> String {
        let name = self.fresh();
        self.line(&format!("{name} = {rhs}"));
        name
    }

    /// `%v = rhs` at the start of the function.
    pub fn prologue_op(&mut self, rhs: &str) -> String {
        let name = self.fresh();
        self.prologue.push_str(&format!("    {name} = {rhs}\n"));
        name
    }

    pub fn constant(&mut self, value: i64, ty: &str) -> String {
        self.op(&format!("llvm.mlir.constant({value} : {ty}) : {ty}"))
    }

    pub fn prologue_const(&mut self, value: i64, ty: &str) -> String {
        self.prologue_op(&format!("llvm.mlir.constant({value} : {ty}) : {ty}"))
    }

    pub fn constant_f32(&mut self, value: f32) -> String {
        self.op(
            &format!("llvm.mlir.constant({:#010X} : f32) : f32", value.to_bits())
                .replace("0X", "0x"),
        )
    }

    /// Opens a region: `header` ends with `{`.
    pub fn open(&mut self, header: &str) {
        self.line(header);
        self.depth += 1;
    }

    /// `} else {` style continuation of an open region.
    pub fn reopen(&mut self, text: &str) {
        self.depth -= 1;
        self.line(text);
        self.depth += 1;
    }

    pub fn close(&mut self) {
        self.depth -= 1;
        self.line("}");
    }

    pub fn take_prologue(&mut self) -> String {
        std::mem::take(&mut self.prologue)
    }

    pub fn take_body(&mut self) -> String {
        std::mem::take(&mut self.body)
    }
}
