//! The code generator: walks the Python AST of the kernel (and of the `@triton.jit` functions it
//! calls) and emits TTIR, evaluating `tl.constexpr` values at compile time as Triton's
//! `CodeGenerator` does. Statements and expressions are here; the `tl.*` library is in
//! [`crate::builtins`].

use crate::diag::{FrontendError, Source};
use crate::ir::{self, ContextAttrs, Ir, Type, Value};
use crate::semantic::{self, Bin, Num, Operand, S, TV};
use crate::signature::{Entry, Literal};
use crate::types::{Dt, I1, I32, I64, Ty};
use mlir_sys::{MlirBlock, MlirModule, MlirOperation};
use rustpython_parser::ast::{self, Ranged};
use std::collections::{BTreeSet, HashMap};

pub type R<T> = Result<T, FrontendError>;

/// A value during code generation: a compile-time (constexpr) Python value or a runtime one.
#[derive(Clone, Debug)]
pub enum Val {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Tuple(Vec<Val>),
    /// A runtime value (scalar or block).
    T(TV),
    /// A `tl.dtype`.
    Dtype(Dt),
    /// A module or a name inside one (`triton.language`, `triton.language.float32`'s parent...),
    /// also Python builtins as `builtins.NAME`.
    Module(String),
    /// A `@triton.jit` function: its module (0: the source file, 1: the front end's prelude) and
    /// name.
    JitFn(usize, String),
    /// A method bound to its receiver (`x.to`, `desc.load`).
    Method(Box<Val>, String),
    /// A slice in a subscript (only `:` is meaningful on blocks).
    Slice,
}

impl Val {
    pub fn kind(&self) -> String {
        match self {
            Val::None => "None".into(),
            Val::Bool(_) => "bool".into(),
            Val::Int(_) => "int".into(),
            Val::Float(_) => "float".into(),
            Val::Str(_) => "str".into(),
            Val::Tuple(_) => "tuple".into(),
            Val::T(t) => t.ty.name(),
            Val::Dtype(_) => "dtype".into(),
            Val::Module(m) => format!("'{m}'"),
            Val::JitFn(_, f) => format!("function '{f}'"),
            Val::Method(_, m) => format!("method '{m}'"),
            Val::Slice => "slice".into(),
        }
    }

    pub fn num(&self) -> Option<Num> {
        match self {
            Val::Bool(b) => Some(Num::Bool(*b)),
            Val::Int(i) => Some(Num::Int(*i)),
            Val::Float(f) => Some(Num::Float(*f)),
            _ => None,
        }
    }

    pub fn is_const(&self) -> bool {
        match self {
            Val::T(_) => false,
            Val::Tuple(items) => items.iter().all(Val::is_const),
            _ => true,
        }
    }

    /// Python truthiness of a constexpr.
    pub fn truthy(&self) -> Option<bool> {
        match self {
            Val::None => Some(false),
            Val::Bool(b) => Some(*b),
            Val::Int(i) => Some(*i != 0),
            Val::Float(f) => Some(*f != 0.0),
            Val::Str(s) => Some(!s.is_empty()),
            Val::Tuple(t) => Some(!t.is_empty()),
            Val::T(_) => None,
            _ => Some(true),
        }
    }

    /// A short text for mangled names.
    fn mangle(&self) -> String {
        match self {
            Val::None => "None".into(),
            Val::Bool(b) => if *b { "True" } else { "False" }.into(),
            Val::Int(i) => i.to_string(),
            Val::Float(f) => format!("{f:?}"),
            Val::Str(s) => format!("'{s}'"),
            Val::Tuple(items) => {
                let inner: Vec<String> = items.iter().map(Val::mangle).collect();
                format!("({})", inner.join("_"))
            }
            Val::T(t) => t.ty.mangle(),
            Val::Dtype(d) => d.name(),
            Val::Module(m) => m.clone(),
            Val::JitFn(_, f) => f.clone(),
            Val::Method(_, m) => m.clone(),
            Val::Slice => ":".into(),
        }
    }
}

/// The values a loop carries: for each name, its structure (a runtime value or a tuple of them)
/// and, flattened in order, the runtime leaves it starts with.
struct Carried {
    names: Vec<String>,
    templates: Vec<Val>,
    inits: Vec<TV>,
}

/// Whether a value can be carried through dynamic control flow (runtime values, numbers and
/// tuples of them).
fn carriable(v: &Val) -> bool {
    match v {
        Val::T(_) => true,
        Val::Tuple(items) => !items.is_empty() && items.iter().all(carriable),
        other => other.num().is_some(),
    }
}

/// The structure of a helper function's result: leaves are runtime values in `tt.return`
/// order.
#[derive(Clone, Debug)]
enum RetShape {
    None,
    Leaf,
    Tuple(Vec<RetShape>),
}

#[derive(Clone)]
struct Instance {
    results: Vec<Ty>,
    shape: RetShape,
}

/// Where a runtime value of a function's argument comes from, for building call operands.
fn flatten(v: &Val, out: &mut Vec<TV>) {
    match v {
        Val::T(t) => out.push(t.clone()),
        Val::Tuple(items) => items.iter().for_each(|i| flatten(i, out)),
        _ => {}
    }
}

/// `v` with each runtime leaf replaced, in order, by the next of `leaves` (a constexpr stays).
fn rebuild(v: &Val, leaves: &mut impl Iterator<Item = TV>) -> Val {
    match v {
        Val::T(_) => Val::T(leaves.next().expect("one leaf per runtime value")),
        Val::Tuple(items) => Val::Tuple(items.iter().map(|i| rebuild(i, leaves)).collect()),
        other => other.clone(),
    }
}

/// One Python module: its source, `@triton.jit` functions and constexpr globals.
pub struct PyModule<'s> {
    /// Its dotted name for another module's imports (`pkg.helpers`); empty for the kernel's own
    /// module and the prelude.
    pub name: String,
    pub src: &'s Source,
    pub funcs: HashMap<String, &'s ast::StmtFunctionDef>,
    pub globals: HashMap<String, Val>,
}

/// A hint on argument `index` of a loop body's `block`: attribute `attr` with `values`.
pub struct ArgumentHint {
    pub block: MlirBlock,
    pub index: usize,
    pub attr: &'static str,
    pub values: Vec<i32>,
}

pub struct Gen<'s> {
    pub ir: Ir,
    /// The source of the function being generated.
    pub src: &'s Source,
    module: MlirModule,
    pub modules: Vec<PyModule<'s>>,
    /// The module of the function being generated.
    pub cur: usize,
    pub vars: HashMap<String, Val>,
    /// When each name of the function was first bound: loop-carried values and `scf.if` results
    /// follow it (as Triton's scope order).
    order: HashMap<String, usize>,
    instances: HashMap<String, Instance>,
    returned: Option<Val>,
    /// Depth of dynamic (scf) regions in the function being generated.
    dynamic: usize,
    /// Depth of statement lists in the function being generated (1: its body).
    block_depth: usize,
    depth: usize,
    /// Offset of the expression being generated, for errors of the library.
    pub at: usize,
    /// The name an assignment binds: the ops computing it are located `loc("name"(loc))`, as
    /// Triton's.
    loc_name: Option<String>,
    /// Debug mode: device assertions are built (`tt.assert`) instead of dropped.
    pub debug: bool,
    /// Hints (`tl.multiple_of`, ...) given to a loop's block arguments, for the loop op (made
    /// after its body) to take ([`Gen::attach_argument_hints`]).
    pub argument_hints: Vec<ArgumentHint>,
    /// `maxNumImpreciseAcc` of fp8 dots that name none ([`crate::BuildOptions`]).
    pub max_num_imprecise_acc_default: i32,
}

fn offset(r: &impl Ranged) -> usize {
    u32::from(r.start()) as usize
}

/// Names a statement list assigns (targets of `=`, `+=`, annotated assignments, `for`).
/// The names a loop body assigns, nested blocks included, except by assignments `keeps_value`
/// says leave their name's value as it was.
fn assigned_names<'a>(
    body: &'a [ast::Stmt],
    out: &mut BTreeSet<String>,
    keeps_value: &mut dyn FnMut(&'a ast::StmtAssign) -> bool,
) {
    fn target(e: &ast::Expr, out: &mut BTreeSet<String>) {
        match e {
            ast::Expr::Name(n) => {
                out.insert(n.id.to_string());
            }
            ast::Expr::Tuple(t) => t.elts.iter().for_each(|e| target(e, out)),
            ast::Expr::List(t) => t.elts.iter().for_each(|e| target(e, out)),
            _ => {}
        }
    }
    for s in body {
        match s {
            ast::Stmt::Assign(a) if keeps_value(a) => {}
            ast::Stmt::Assign(a) => a.targets.iter().for_each(|t| target(t, out)),
            ast::Stmt::AugAssign(a) => target(&a.target, out),
            ast::Stmt::AnnAssign(a) => target(&a.target, out),
            ast::Stmt::For(f) => {
                target(&f.target, out);
                assigned_names(&f.body, out, keeps_value);
                assigned_names(&f.orelse, out, keeps_value);
            }
            ast::Stmt::While(w) => {
                assigned_names(&w.body, out, keeps_value);
                assigned_names(&w.orelse, out, keeps_value);
            }
            ast::Stmt::If(i) => {
                assigned_names(&i.body, out, keeps_value);
                assigned_names(&i.orelse, out, keeps_value);
            }
            _ => {}
        }
    }
}

/// Whether a statement list ends with a `return`.
fn ends_with_return(body: &[ast::Stmt]) -> bool {
    matches!(body.last(), Some(ast::Stmt::Return(_)))
}

/// Whether two generation-time values are the same (the same SSA value or equal constexprs).
fn same(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::T(x), Val::T(y)) => x.v.ptr == y.v.ptr,
        (Val::Tuple(x), Val::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Val::None, Val::None) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Float(x), Val::Float(y)) => x == y,
        (Val::Str(x), Val::Str(y)) => x == y,
        (Val::Dtype(x), Val::Dtype(y)) => x == y,
        (Val::Module(x), Val::Module(y)) => x == y,
        (Val::JitFn(m, x), Val::JitFn(n, y)) => m == n && x == y,
        _ => false,
    }
}

/// Call arguments: positional, then keywords.
pub struct Args {
    pub pos: Vec<Val>,
    pub kw: Vec<(String, Val)>,
}

impl Args {
    /// Argument `i` by position or `name` by keyword.
    pub fn get(&self, i: usize, name: &str) -> Option<Val> {
        self.kw
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| self.pos.get(i).cloned())
    }
    pub fn kw(&self, name: &str) -> Option<Val> {
        self.kw
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }
}

impl<'s> Gen<'s> {
    pub fn new(
        ctx: mlir_sys::MlirContext,
        src: &'s Source,
        module: MlirModule,
        prelude: &'s Source,
    ) -> Gen<'s> {
        // SAFETY: the module is live; its body block is where functions go.
        let body = unsafe { mlir_sys::mlirModuleGetBody(module) };
        Gen {
            ir: Ir::new(ctx, &src.file, body),
            src,
            module,
            modules: vec![
                PyModule {
                    name: String::new(),
                    src,
                    funcs: HashMap::new(),
                    globals: HashMap::new(),
                },
                PyModule {
                    name: String::new(),
                    src: prelude,
                    funcs: HashMap::new(),
                    globals: HashMap::new(),
                },
            ],
            cur: 0,
            vars: HashMap::new(),
            order: HashMap::new(),
            instances: HashMap::new(),
            returned: None,
            dynamic: 0,
            block_depth: 0,
            depth: 0,
            at: 0,
            loc_name: None,
            debug: false,
            argument_hints: Vec::new(),
            max_num_imprecise_acc_default: 0,
        }
    }

    /// Binds `name` in the current function.
    fn bind(&mut self, name: String, value: Val) {
        let next = self.order.len();
        self.order.entry(name.clone()).or_insert(next);
        self.vars.insert(name, value);
    }

    /// `names` in the order they were first bound.
    fn in_scope_order(&self, names: &mut [String]) {
        names.sort_by_key(|n| (self.order.get(n).copied().unwrap_or(usize::MAX), n.clone()));
    }

    /// An error at byte offset `at`.
    pub fn err_at(&self, at: usize, message: impl Into<String>) -> FrontendError {
        self.src.error_at(at, message)
    }

    /// An error at the expression being generated.
    pub fn err(&self, message: impl Into<String>) -> FrontendError {
        self.src.error_at(self.at, message)
    }

    /// Places a library error at the current expression.
    pub fn s<T>(&self, r: S<T>) -> R<T> {
        r.map_err(|e| self.err(e))
    }

    fn set_loc(&mut self, at: usize) {
        self.at = at;
        let (line, col) = self.src.line_col(at);
        self.ir.loc = self.ir.file_loc(line, col);
        if let Some(name) = &self.loc_name {
            self.ir.loc = self.ir.name_loc(name, self.ir.loc);
        }
    }

    // ----- functions -----

    /// Generates the kernel `def` specialized by `signature` as a public `tt.func`.
    pub fn kernel(&mut self, def: &'s ast::StmtFunctionDef, signature: &[Entry]) -> R<()> {
        let params = params_of(def);
        // Trailing parameters the signature leaves out take their defaults (constexprs).
        let mut signature = signature.to_vec();
        while signature.len() < params.len() {
            let Some(default) = &params[signature.len()].default else {
                break;
            };
            let v = self.expr(default)?;
            let literal = match v {
                Val::Int(i) => Literal::Int(i),
                Val::Float(f) => Literal::Float(f),
                Val::Bool(b) => Literal::Bool(b),
                Val::Str(s) => Literal::Str(s),
                Val::Dtype(d) => Literal::Dtype(d),
                Val::None => Literal::None,
                other => {
                    return Err(self.err_at(
                        offset(&**default),
                        format!(
                            "the default of a kernel parameter must be a constexpr literal, got {}",
                            other.kind()
                        ),
                    ));
                }
            };
            signature.push(Entry::Literal(literal));
        }
        let signature = signature.as_slice();
        if params.len() != signature.len() {
            return Err(self.err_at(
                offset(def),
                format!(
                    "the signature has {} entries but kernel '{}' has {} parameters",
                    signature.len(),
                    def.name,
                    params.len()
                ),
            ));
        }
        self.set_loc(offset(def));
        let fn_loc = self.ir.loc;
        let mut types = Vec::new();
        let mut arg_attrs = Vec::new();
        let mut any_attr = false;
        let mut locs = Vec::new();
        for (p, entry) in params.iter().zip(signature) {
            let constexpr = p
                .def
                .annotation
                .as_deref()
                .is_some_and(annotation_is_constexpr);
            match entry {
                Entry::Type { dt, divisible16 } => {
                    if constexpr {
                        return Err(self.err_at(
                            offset(&p.def),
                            format!(
                                "parameter '{}' is a tl.constexpr: the signature must give its value, not the type {}",
                                p.def.arg,
                                dt.name()
                            ),
                        ));
                    }
                    types.push(Ty::scalar(dt.clone()));
                    if *divisible16 {
                        any_attr = true;
                        arg_attrs.push(
                            self.ir
                                .dictionary_attr(&[("tt.divisibility", self.ir.i32_attr(16))]),
                        );
                    } else {
                        arg_attrs.push(self.ir.dictionary_attr(&[]));
                    }
                    locs.push(self.ir.name_loc(p.def.arg.as_str(), fn_loc));
                    // A host-side descriptor is followed by its shape (i32) and strides (i64),
                    // as Triton 3.6 passes them.
                    if let Dt::Desc(block) = dt {
                        let rank = block.shape.len();
                        for (what, dt) in [("shape", I32), ("stride", I64)] {
                            for i in 0..rank {
                                types.push(Ty::scalar(dt.clone()));
                                arg_attrs.push(self.ir.dictionary_attr(&[]));
                                let name = format!("{}_{what}{i}", p.def.arg);
                                locs.push(self.ir.name_loc(&name, fn_loc));
                            }
                        }
                    }
                }
                Entry::Literal(_) => {}
            }
        }
        let mlir_types: Vec<Type> = types.iter().map(|t| t.to_mlir(&self.ir)).collect();
        let block = ir::new_block_with_locs(&mlir_types, &locs);
        let saved_block = self.ir.block;
        self.ir.block = block;
        self.vars.clear();
        self.order.clear();
        let mut arg_index = 0;
        for (p, entry) in params.iter().zip(signature) {
            let value = match entry {
                Entry::Type { dt, .. } => {
                    let tv = TV {
                        v: ir::block_arg(block, arg_index),
                        ty: types[arg_index].clone(),
                    };
                    arg_index += 1;
                    if let Dt::Desc(block) = dt {
                        arg_index += 2 * block.shape.len();
                    }
                    Val::T(tv)
                }
                Entry::Literal(l) => literal_val(l),
            };
            self.bind(p.def.arg.to_string(), value);
        }
        self.returned = None;
        self.dynamic = 0;
        self.block_depth = 0;
        let body = self.block(&def.body);
        self.ir.block = saved_block;
        if let Err(e) = body {
            ir::destroy_block(block);
            return Err(e);
        }
        if let Some(v) = self.returned.take()
            && !matches!(v, Val::None)
        {
            ir::destroy_block(block);
            return Err(self.err_at(offset(def), "a kernel cannot return a value"));
        }
        self.ir.loc = fn_loc;
        self.append_return(block, &[]);
        let ftype = self.ir.function_type(&mlir_types, &[]);
        let mut attrs = vec![
            ("sym_name", self.ir.string_attr(def.name.as_str())),
            ("function_type", self.ir.type_attr(ftype)),
            ("sym_visibility", self.ir.string_attr("public")),
        ];
        if any_attr {
            attrs.push(("arg_attrs", self.ir.array_attr(&arg_attrs)));
        }
        let region = self.ir.region_of(block);
        let func = self.ir.make("tt.func", &[], &[], &attrs, vec![region]);
        ir::set_attr(func, "noinline", self.ir.bool_attr(false));
        ir::module_append(self.module, func);
        Ok(())
    }

    fn append_return(&mut self, block: MlirBlock, values: &[Value]) {
        let saved = self.ir.block;
        self.ir.block = block;
        self.ir.op("tt.return", values, &[], &[], Vec::new());
        self.ir.block = saved;
    }

    /// Calls the `@triton.jit` function `name`: instantiates it for these argument types and
    /// constexpr values (once) as a private `tt.func`, and emits `tt.call`.
    pub fn call_jit(&mut self, module: usize, name: &str, args: Args) -> R<Val> {
        let def = self.modules[module].funcs[name];
        let call_at = self.at;
        let call_loc = self.ir.loc;
        let params = params_of(def);
        if args.pos.len() > params.len() {
            return Err(self.err(format!(
                "{name}() takes {} arguments but {} were given",
                params.len(),
                args.pos.len()
            )));
        }
        let mut bound: Vec<Val> = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let pname = p.def.arg.as_str();
            let v = match args.get(i, pname) {
                Some(v) => v,
                None => match &p.default {
                    Some(d) => {
                        // Defaults are evaluated in the function's module, without locals.
                        let saved = (
                            std::mem::take(&mut self.vars),
                            self.cur,
                            self.at,
                            self.ir.loc,
                        );
                        self.enter_module(module);
                        let r = self.expr(d);
                        self.enter_module(saved.1);
                        self.vars = saved.0;
                        self.at = saved.2;
                        self.ir.loc = saved.3;
                        r?
                    }
                    None => {
                        return Err(self.err_at(
                            call_at,
                            format!("{name}() is missing the argument '{pname}'"),
                        ));
                    }
                },
            };
            bound.push(v);
        }
        for (k, _) in &args.kw {
            if !params.iter().any(|p| p.def.arg.as_str() == k) {
                return Err(self.err(format!("{name}() got an unexpected keyword argument '{k}'")));
            }
        }
        let mut leaves = Vec::new();
        bound.iter().for_each(|v| flatten(v, &mut leaves));
        let key: Vec<String> = bound.iter().map(Val::mangle).collect();
        let prefix = match module {
            0 => String::new(),
            1 => "tritium.language.".to_owned(),
            _ => format!("{}.", self.modules[module].name),
        };
        let symbol = format!("{prefix}{name}__{}", key.join("__"));
        if !self.instances.contains_key(&symbol) {
            if self.depth > 64 {
                return Err(self.err(format!("{name}: recursion is not supported")));
            }
            let saved = (self.cur, self.src);
            self.enter_module(module);
            let instance = self.instantiate(def, &symbol, &params, &bound, &leaves);
            self.enter_module(saved.0);
            let instance = instance?;
            self.instances.insert(symbol.clone(), instance);
        }
        let instance = self.instances[&symbol].clone();
        self.at = call_at;
        self.ir.loc = call_loc;
        let operands: Vec<Value> = leaves.iter().map(|t| t.v).collect();
        let results: Vec<Type> = instance
            .results
            .iter()
            .map(|t| t.to_mlir(&self.ir))
            .collect();
        let op = self.ir.op(
            "tt.call",
            &operands,
            &results,
            &[("callee", self.ir.symbol_ref(&symbol))],
            Vec::new(),
        );
        let mut outs = instance.results.iter().enumerate().map(|(i, ty)| TV {
            v: ir::result(op, i),
            ty: ty.clone(),
        });
        Ok(build_ret(&instance.shape, &mut outs))
    }

    /// Makes `module` the one names resolve in (and locations and errors refer to).
    fn enter_module(&mut self, module: usize) {
        self.cur = module;
        self.src = self.modules[module].src;
        self.ir.file = self.src.file.clone();
    }

    fn instantiate(
        &mut self,
        def: &'s ast::StmtFunctionDef,
        symbol: &str,
        params: &[&'s ast::ArgWithDefault],
        bound: &[Val],
        leaves: &[TV],
    ) -> R<Instance> {
        self.set_loc(offset(def));
        let fn_loc = self.ir.loc;
        let types: Vec<Type> = leaves.iter().map(|t| t.ty.to_mlir(&self.ir)).collect();
        let locs = vec![fn_loc; types.len()];
        let block = ir::new_block_with_locs(&types, &locs);
        let saved_vars = std::mem::take(&mut self.vars);
        let saved_order = std::mem::take(&mut self.order);
        let saved_name = self.loc_name.take();
        let saved_block = self.ir.block;
        let saved_ret = self.returned.take();
        let saved_dynamic = self.dynamic;
        let saved_block_depth = self.block_depth;
        self.ir.block = block;
        self.dynamic = 0;
        self.block_depth = 0;
        self.depth += 1;
        let mut args = (0..leaves.len()).map(|i| TV {
            v: ir::block_arg(block, i),
            ty: leaves[i].ty.clone(),
        });
        for (p, v) in params.iter().zip(bound) {
            let value = rebuild(v, &mut args);
            self.bind(p.def.arg.to_string(), value);
        }
        let body = self.block(&def.body);
        let ret = self.returned.take().unwrap_or(Val::None);
        let result = body.and_then(|()| {
            // Constexpr results are materialized (a runtime function returns values).
            let ret = self.materialize_all(&ret)?;
            let mut outs = Vec::new();
            flatten(&ret, &mut outs);
            Ok((shape_of(&ret), outs))
        });
        self.depth -= 1;
        self.ir.block = saved_block;
        self.vars = saved_vars;
        self.order = saved_order;
        self.loc_name = saved_name;
        self.returned = saved_ret;
        self.dynamic = saved_dynamic;
        self.block_depth = saved_block_depth;
        let (shape, outs) = match result {
            Ok(r) => r,
            Err(e) => {
                ir::destroy_block(block);
                return Err(e);
            }
        };
        self.ir.loc = fn_loc;
        let values: Vec<Value> = outs.iter().map(|t| t.v).collect();
        self.append_return(block, &values);
        let results: Vec<Ty> = outs.iter().map(|t| t.ty.clone()).collect();
        let result_types: Vec<Type> = results.iter().map(|t| t.to_mlir(&self.ir)).collect();
        let ftype = self.ir.function_type(&types, &result_types);
        let attrs = [
            ("sym_name", self.ir.string_attr(symbol)),
            ("function_type", self.ir.type_attr(ftype)),
            ("sym_visibility", self.ir.string_attr("private")),
        ];
        let region = self.ir.region_of(block);
        let func = self.ir.make("tt.func", &[], &[], &attrs, vec![region]);
        ir::set_attr(func, "noinline", self.ir.bool_attr(false));
        ir::module_append(self.module, func);
        Ok(Instance { results, shape })
    }

    /// Constexpr numbers inside `v` as runtime scalars.
    fn materialize_all(&mut self, v: &Val) -> R<Val> {
        Ok(match v {
            Val::Tuple(items) => Val::Tuple(
                items
                    .iter()
                    .map(|i| self.materialize_all(i))
                    .collect::<R<_>>()?,
            ),
            Val::T(_) | Val::None => v.clone(),
            other => Val::T(self.tensor(other)?),
        })
    }

    /// A value as a runtime value (numbers become constants of their default type).
    pub fn tensor(&mut self, v: &Val) -> R<TV> {
        match v {
            Val::T(t) => Ok(t.clone()),
            other => match other.num() {
                Some(n) => self.s(semantic::to_tensor(&self.ir, n)),
                None => Err(self.err(format!(
                    "expected a tensor or a number, got {}",
                    other.kind()
                ))),
            },
        }
    }

    // ----- statements -----

    pub fn block(&mut self, body: &'s [ast::Stmt]) -> R<()> {
        self.block_depth += 1;
        let r = self.block_parts(&[body]);
        self.block_depth -= 1;
        r
    }

    /// Runs the statement lists `parts` one after the other.
    fn block_parts(&mut self, parts: &[&'s [ast::Stmt]]) -> R<()> {
        for (k, part) in parts.iter().enumerate() {
            for (i, stmt) in part.iter().enumerate() {
                if self.returned.is_some() {
                    return Ok(());
                }
                // `if c: ... return` at the top of a function on a runtime `c`: the rest of the
                // function becomes the other branch (Triton's early return).
                // A constexpr `if` there splices its branch into the sequence (so early returns
                // inside it see the whole rest of the function).
                if let ast::Stmt::If(s) = stmt
                    && self.block_depth == 1
                {
                    self.set_loc(offset(stmt));
                    let cond = self.expr(&s.test)?;
                    let mut rest = vec![&part[i + 1..]];
                    rest.extend_from_slice(&parts[k + 1..]);
                    if let Some(taken) = cond.truthy() {
                        let mut seq = vec![if taken { &s.body[..] } else { &s.orelse[..] }];
                        seq.extend(rest);
                        return self.block_parts(&seq);
                    }
                    if ends_with_return(&s.body) || ends_with_return(&s.orelse) {
                        return self.early_return_if(s, cond, rest);
                    }
                    self.if_dynamic(s, cond)?;
                    continue;
                }
                self.stmt(stmt)?;
            }
        }
        Ok(())
    }

    /// `if c: A (return)` / `else: B (return)` followed by `rest` at the end of a function:
    /// `scf.if c { A, or A + rest } else { B, or B + rest }`.
    fn early_return_if(
        &mut self,
        s: &'s ast::StmtIf,
        cond: Val,
        rest: Vec<&'s [ast::Stmt]>,
    ) -> R<()> {
        self.set_loc(offset(s));
        let c = self.condition(&cond, "an if")?;
        let before = self.vars.clone();
        let saved = self.ir.block;
        let saved_dynamic = self.dynamic;
        let mut blocks = Vec::new();
        let mut returns: Vec<(Val, Vec<TV>)> = Vec::new();
        let mut result = Ok(());
        for branch in [&s.body, &s.orelse] {
            let block = self.ir.new_block(&[]);
            blocks.push(block);
            self.ir.block = block;
            self.vars = before.clone();
            let mut seq = vec![&branch[..]];
            if !ends_with_return(branch) {
                seq.extend(rest.iter().copied());
            }
            // Still the function's top level: its `return` ends the branch, and further early
            // returns nest the same way.
            let depth = std::mem::replace(&mut self.block_depth, 1);
            self.dynamic = 0;
            result = result.and_then(|()| self.block_parts(&seq));
            self.block_depth = depth;
            let value = self.returned.take().unwrap_or(Val::None);
            result = result.and_then(|()| {
                let value = self.materialize_all(&value)?;
                let mut leaves = Vec::new();
                flatten(&value, &mut leaves);
                returns.push((value, leaves));
                Ok(())
            });
        }
        self.dynamic = saved_dynamic;
        self.vars = before;
        if result.is_ok() {
            let (a, b) = (&returns[0].1, &returns[1].1);
            if a.len() != b.len() || a.iter().zip(b).any(|(x, y)| x.ty != y.ty) {
                let types = |l: &[TV]| {
                    let names: Vec<String> = l.iter().map(|t| t.ty.name()).collect();
                    format!("({})", names.join(", "))
                };
                result = Err(self.err_at(
                    offset(s),
                    format!(
                        "the two ways out of this if return different types: {} and {}",
                        types(a),
                        types(b)
                    ),
                ));
            }
        }
        if let Err(e) = result {
            self.ir.block = saved;
            blocks.into_iter().for_each(ir::destroy_block);
            return Err(e);
        }
        self.set_loc(offset(s));
        for (block, (_, leaves)) in blocks.iter().zip(&returns) {
            self.ir.block = *block;
            let values: Vec<Value> = leaves.iter().map(|t| t.v).collect();
            self.ir.op("scf.yield", &values, &[], &[], Vec::new());
        }
        self.ir.block = saved;
        let tys: Vec<Ty> = returns[0].1.iter().map(|t| t.ty.clone()).collect();
        let mlir: Vec<Type> = tys.iter().map(|t| t.to_mlir(&self.ir)).collect();
        let regions = blocks.into_iter().map(|b| self.ir.region_of(b)).collect();
        let op = self.ir.op("scf.if", &[c.v], &mlir, &[], regions);
        let mut results = tys.into_iter().enumerate().map(|(k, ty)| TV {
            v: ir::result(op, k),
            ty,
        });
        // The function ends here, returning what the branches return.
        self.returned = Some(rebuild(&returns[0].0, &mut results));
        Ok(())
    }

    fn stmt(&mut self, stmt: &'s ast::Stmt) -> R<()> {
        self.set_loc(offset(stmt));
        match stmt {
            ast::Stmt::Expr(e) => {
                if matches!(&*e.value, ast::Expr::Constant(_)) {
                    return Ok(()); // docstring
                }
                self.expr(&e.value)?;
            }
            ast::Stmt::Assign(a) => {
                let name = match a.targets.as_slice() {
                    [ast::Expr::Name(n)] => Some(n.id.to_string()),
                    _ => None,
                };
                let saved = std::mem::replace(&mut self.loc_name, name);
                let value = self.expr(&a.value);
                self.loc_name = saved;
                let value = value?;
                for t in &a.targets {
                    self.assign(t, value.clone())?;
                }
            }
            ast::Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    let value = self.expr(v)?;
                    self.assign(&a.target, value)?;
                }
            }
            ast::Stmt::AugAssign(a) => {
                let ast::Expr::Name(n) = &*a.target else {
                    return Err(self.err_at(
                        offset(&*a.target),
                        "augmented assignment is only supported to a name",
                    ));
                };
                let current = self.name(n.id.as_str(), offset(n))?;
                let saved = self.loc_name.replace(n.id.to_string());
                let r = self.expr(&a.value).and_then(|value| {
                    self.set_loc(offset(stmt));
                    self.binop(operator(a.op), current, value)
                });
                self.loc_name = saved;
                let r = r?;
                self.bind(n.id.to_string(), r);
            }
            ast::Stmt::If(i) => self.if_stmt(i)?,
            ast::Stmt::For(f) => self.for_stmt(f)?,
            ast::Stmt::While(w) => self.while_stmt(w)?,
            ast::Stmt::Return(r) => {
                if self.dynamic > 0 {
                    return Err(self.err(
                        "return inside dynamic control flow (an if or loop on runtime values) is not supported",
                    ));
                }
                let v = match &r.value {
                    Some(e) => self.expr(e)?,
                    None => Val::None,
                };
                self.returned = Some(v);
            }
            ast::Stmt::Pass(_) => {}
            ast::Stmt::Assert(a) => {
                let test = self.expr(&a.test)?;
                if let Some(false) = test.truthy() {
                    let msg = match &a.msg {
                        Some(m) => match self.expr(m)? {
                            Val::Str(s) => s,
                            other => other.mangle(),
                        },
                        None => "assertion failed".into(),
                    };
                    return Err(
                        self.err_at(offset(stmt), format!("static assertion failed: {msg}"))
                    );
                }
                // A runtime assert is a device_assert, which Triton drops without debug mode.
                if self.debug && test.truthy().is_none() {
                    self.set_loc(offset(stmt));
                    let msg = match &a.msg {
                        Some(m) => match self.expr(m)? {
                            Val::Str(s) => s,
                            other => other.mangle(),
                        },
                        None => String::new(),
                    };
                    self.device_assert(&test, &msg)?;
                }
            }
            ast::Stmt::Break(_) | ast::Stmt::Continue(_) => {
                return Err(self.err("break and continue are not supported in Triton kernels"));
            }
            ast::Stmt::FunctionDef(_) => {
                return Err(self.err(
                    "nested function definitions are not supported: define a @triton.jit function at module level",
                ));
            }
            ast::Stmt::Import(_) | ast::Stmt::ImportFrom(_) => {
                return Err(self.err("import inside a kernel is not supported"));
            }
            other => {
                return Err(self.err(format!(
                    "unsupported statement in a Triton kernel: {}",
                    stmt_kind(other)
                )));
            }
        }
        Ok(())
    }

    fn assign(&mut self, target: &'s ast::Expr, value: Val) -> R<()> {
        match target {
            ast::Expr::Name(n) => {
                self.bind(n.id.to_string(), value);
                Ok(())
            }
            ast::Expr::Tuple(ast::ExprTuple { elts, .. })
            | ast::Expr::List(ast::ExprList { elts, .. }) => {
                let Val::Tuple(items) = value else {
                    return Err(self.err_at(
                        offset(target),
                        format!("cannot unpack a value of type {}", value.kind()),
                    ));
                };
                if items.len() != elts.len() {
                    return Err(self.err_at(
                        offset(target),
                        format!(
                            "cannot unpack {} values into {} names",
                            items.len(),
                            elts.len()
                        ),
                    ));
                }
                for (t, v) in elts.iter().zip(items) {
                    self.assign(t, v)?;
                }
                Ok(())
            }
            _ => Err(self.err_at(
                offset(target),
                "only assignment to names (and tuples of names) is supported",
            )),
        }
    }

    /// `tt.assert` of `cond` (a scalar or a block, as `i1`) with `message`: debug mode's
    /// device assertion.
    pub fn device_assert(&mut self, cond: &Val, message: &str) -> R<()> {
        let t = self.tensor(cond)?;
        let c = self.s(semantic::cast(&self.ir, &t, &I1, None))?;
        let attrs = [("message", self.ir.string_attr(message))];
        self.ir.op("tt.assert", &[c.v], &[], &attrs, Vec::new());
        Ok(())
    }

    /// A condition as an `i1` scalar.
    fn condition(&mut self, v: &Val, what: &str) -> R<TV> {
        let t = self.tensor(v)?;
        if t.ty.is_block() {
            return Err(self.err(format!(
                "the condition of {what} must be a scalar, not a block of type {}",
                t.ty.name()
            )));
        }
        self.s(semantic::cast(&self.ir, &t, &I1, None))
    }

    fn if_stmt(&mut self, i: &'s ast::StmtIf) -> R<()> {
        let cond = self.expr(&i.test)?;
        if let Some(b) = cond.truthy() {
            // A constexpr condition: only the taken branch is generated.
            return self.block(if b { &i.body } else { &i.orelse });
        }
        self.if_dynamic(i, cond)
    }

    /// `if` on the runtime condition `cond`: `scf.if` yielding what the branches change.
    fn if_dynamic(&mut self, i: &'s ast::StmtIf, cond: Val) -> R<()> {
        self.set_loc(offset(i));
        let c = self.condition(&cond, "an if")?;
        let before = self.vars.clone();
        let then_block = self.ir.new_block(&[]);
        let else_block = self.ir.new_block(&[]);
        let saved = self.ir.block;
        self.dynamic += 1;
        self.ir.block = then_block;
        let r1 = self.block(&i.body);
        let then_vars = std::mem::replace(&mut self.vars, before.clone());
        self.ir.block = else_block;
        let r2 = r1.and_then(|()| self.block(&i.orelse));
        let else_vars = std::mem::replace(&mut self.vars, before.clone());
        self.dynamic -= 1;
        self.ir.block = saved;
        if let Err(e) = r2 {
            ir::destroy_block(then_block);
            ir::destroy_block(else_block);
            return Err(e);
        }
        // Names that leave the if: defined in both branches, or defined before and changed in one.
        let mut names: Vec<String> = then_vars
            .keys()
            .chain(else_vars.keys())
            .filter(|n| {
                let (t, e) = (then_vars.get(*n), else_vars.get(*n));
                match (t, e, before.get(*n)) {
                    (Some(t), Some(e), Some(b)) => !same(t, b) || !same(e, b),
                    (Some(_), Some(_), None) => true,
                    _ => false,
                }
            })
            .cloned()
            .collect();
        names.sort();
        names.dedup();
        self.in_scope_order(&mut names);
        let mut yields_then = Vec::new();
        let mut yields_else = Vec::new();
        let mut carried = Vec::new();
        self.set_loc(offset(i));
        for n in &names {
            let (t, e) = (&then_vars[n], &else_vars[n]);
            if same(t, e) {
                carried.push((n.clone(), None, t.clone()));
                continue;
            }
            self.ir.block = then_block;
            let tv = self.materialize_carried(n, t);
            self.ir.block = else_block;
            let ev = self.materialize_carried(n, e);
            self.ir.block = saved;
            let (tv, ev) = match (tv, ev) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(x), _) | (_, Err(x)) => {
                    ir::destroy_block(then_block);
                    ir::destroy_block(else_block);
                    return Err(x);
                }
            };
            let (mut tl, mut el) = (Vec::new(), Vec::new());
            flatten(&tv, &mut tl);
            flatten(&ev, &mut el);
            let types = |l: &[TV]| l.iter().map(|t| t.ty.name()).collect::<Vec<_>>().join(", ");
            if tl.len() != el.len() || tl.iter().zip(&el).any(|(a, b)| a.ty != b.ty) {
                ir::destroy_block(then_block);
                ir::destroy_block(else_block);
                return Err(self.err_at(
                    offset(i),
                    format!(
                        "'{n}' has type {} in the then branch but {} in the else branch",
                        types(&tl),
                        types(&el)
                    ),
                ));
            }
            yields_then.extend(tl.iter().map(|t| t.v));
            yields_else.extend(el.iter().map(|t| t.v));
            carried.push((
                n.clone(),
                Some(tl.iter().map(|t| t.ty.clone()).collect::<Vec<_>>()),
                tv,
            ));
        }
        self.ir.block = then_block;
        self.ir.op("scf.yield", &yields_then, &[], &[], Vec::new());
        self.ir.block = else_block;
        self.ir.op("scf.yield", &yields_else, &[], &[], Vec::new());
        self.ir.block = saved;
        let result_types: Vec<Ty> = carried
            .iter()
            .filter_map(|c| c.1.clone())
            .flatten()
            .collect();
        let mlir: Vec<Type> = result_types.iter().map(|t| t.to_mlir(&self.ir)).collect();
        let regions = vec![self.ir.region_of(then_block), self.ir.region_of(else_block)];
        let op = self.ir.op("scf.if", &[c.v], &mlir, &[], regions);
        self.vars = before;
        let mut results = result_types.into_iter().enumerate().map(|(k, ty)| TV {
            v: ir::result(op, k),
            ty,
        });
        for (n, leaves, v) in carried {
            let value = match leaves {
                Some(_) => rebuild(&v, &mut results),
                None => v,
            };
            self.vars.insert(n, value);
        }
        Ok(())
    }

    /// The names a loop carries: assigned in its body and defined before it as values —
    /// except by `x = tl.multiple_of(x, ...)` (or `max_contiguous` / `max_constancy`, nested):
    /// a hint returns its input, so `x` stays the value from before the loop and the hint lands
    /// on the op defining it, as in Triton.
    fn loop_carried(&mut self, body: &'s [ast::Stmt]) -> Vec<String> {
        let mut names = BTreeSet::new();
        assigned_names(body, &mut names, &mut |a| self.is_hint_of_itself(a));
        let mut names: Vec<String> = names
            .into_iter()
            .filter(|n| self.vars.get(n).is_some_and(carriable))
            .collect();
        self.in_scope_order(&mut names);
        names
    }

    /// Puts the hints given to block arguments of `blocks` (the regions of `loop_op`) on it,
    /// as Triton's `tt.divisibility_argN` (N the argument's number), and on the op defining the
    /// argument's value before the loop (`init`, where it is an op result): the hint holds in
    /// every iteration, the first included — which is where Triton's front end, evaluating the
    /// body once on the values from before the loop, puts it too.
    fn attach_argument_hints(
        &mut self,
        loop_op: MlirOperation,
        blocks: &[MlirBlock],
        init: impl Fn(usize) -> Option<Value>,
    ) {
        let (mine, rest): (Vec<ArgumentHint>, Vec<ArgumentHint>) =
            std::mem::take(&mut self.argument_hints)
                .into_iter()
                .partition(|h| blocks.iter().any(|b| b.ptr == h.block.ptr));
        self.argument_hints = rest;
        for hint in mine {
            let attr = ir::dense_i32_elements(&self.ir, &hint.values);
            ir::set_attr(loop_op, &format!("{}_arg{}", hint.attr, hint.index), attr);
            if let Some(op) = init(hint.index).and_then(ir::defining_op) {
                ir::set_attr(op, hint.attr, attr);
            }
        }
    }

    /// Whether an assignment is `x = HINT(x, ...)`, HINT one of the compiler hints that return
    /// their input (`tl.multiple_of`, `tl.max_contiguous`, `tl.max_constancy`), possibly nested.
    fn is_hint_of_itself(&mut self, assign: &'s ast::StmtAssign) -> bool {
        let [ast::Expr::Name(name)] = assign.targets.as_slice() else {
            return false;
        };
        let mut value = &*assign.value;
        loop {
            match value {
                ast::Expr::Name(n) => return n.id == name.id,
                ast::Expr::Call(call) => {
                    let keyword_input = call
                        .keywords
                        .iter()
                        .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "input"))
                        .map(|k| &k.value);
                    let Some(input) = call.args.first().or(keyword_input) else {
                        return false;
                    };
                    // Only names and attributes are evaluated: no IR is built.
                    if !matches!(&*call.func, ast::Expr::Name(_) | ast::Expr::Attribute(_)) {
                        return false;
                    }
                    let saved = (self.at, self.ir.loc);
                    let callee = self.expr_inner(&call.func);
                    (self.at, self.ir.loc) = saved;
                    let is_hint = matches!(&callee, Ok(Val::Module(m)) if matches!(
                        m.as_str(),
                        "triton.language.multiple_of"
                            | "triton.language.max_contiguous"
                            | "triton.language.max_constancy"
                    ));
                    if !is_hint {
                        return false;
                    }
                    value = input;
                }
                _ => return false,
            }
        }
    }

    fn for_stmt(&mut self, f: &'s ast::StmtFor) -> R<()> {
        if !f.orelse.is_empty() {
            return Err(self.err("for ... else is not supported"));
        }
        let ast::Expr::Call(call) = &*f.iter else {
            // Iterating over a constexpr tuple unrolls.
            let iter = self.expr(&f.iter)?;
            let Val::Tuple(items) = iter else {
                return Err(self.err_at(
                    offset(&*f.iter),
                    "a for loop must iterate over range(...), tl.range(...), tl.static_range(...) or a constexpr tuple",
                ));
            };
            for item in items {
                self.assign(&f.target, item)?;
                self.block(&f.body)?;
            }
            return Ok(());
        };
        let callee = self.expr(&call.func)?;
        let kind = match &callee {
            Val::Module(m) if m == "builtins.range" => "range",
            Val::Module(m) if m == "triton.language.range" => "tl.range",
            Val::Module(m) if m == "triton.language.static_range" => "static_range",
            _ => {
                return Err(self.err_at(
                    offset(&*f.iter),
                    "a for loop must iterate over range(...), tl.range(...) or tl.static_range(...)",
                ));
            }
        };
        let args = self.call_args(call)?;
        let (lb, ub, step) = match args.pos.len() {
            1 => (Val::Int(0), args.pos[0].clone(), Val::Int(1)),
            2 => (args.pos[0].clone(), args.pos[1].clone(), Val::Int(1)),
            3 => (
                args.pos[0].clone(),
                args.pos[1].clone(),
                args.pos[2].clone(),
            ),
            _ => {
                return Err(self.err_at(offset(call), "range expects 1 to 3 positional arguments"));
            }
        };
        let (lb, ub, step) = (
            args.kw("arg1").unwrap_or(lb),
            args.kw("arg2").unwrap_or(ub),
            args.kw("step").unwrap_or(step),
        );
        if kind == "static_range" {
            let (Val::Int(a), Val::Int(b), Val::Int(s)) = (&lb, &ub, &step) else {
                return Err(self.err_at(
                    offset(call),
                    "tl.static_range bounds must be constexpr integers",
                ));
            };
            if *s == 0 {
                return Err(self.err_at(offset(call), "tl.static_range step must not be 0"));
            }
            let mut i = *a;
            while (*s > 0 && i < *b) || (*s < 0 && i > *b) {
                self.assign(&f.target, Val::Int(i))?;
                self.block(&f.body)?;
                if self.returned.is_some() {
                    break;
                }
                i += s;
            }
            return Ok(());
        }
        self.set_loc(offset(f));
        // A negative constexpr step runs the loop upwards over the swapped bounds and maps the
        // induction variable back: i = lb + ub - i' (as Triton does).
        let (lb, ub, step, reversed) = match &step {
            Val::Int(s) if *s < 0 => (ub, lb, Val::Int(-s), true),
            Val::Int(0) => return Err(self.err_at(offset(call), "range() step must not be zero")),
            _ => (lb, ub, step, false),
        };
        let mut bounds = Vec::new();
        for v in [&lb, &ub, &step] {
            let t = self.tensor(v)?;
            if !t.ty.dt.is_int() || t.ty.is_block() {
                return Err(self.err_at(
                    offset(call),
                    format!("loop bounds must be integer scalars, got {}", t.ty.name()),
                ));
            }
            bounds.push(t);
        }
        let mut iv_dt = bounds[0].ty.dt.clone();
        for b in &bounds[1..] {
            iv_dt = self.s(semantic::integer_promote(&iv_dt, &b.ty.dt))?;
        }
        let bounds: Vec<TV> = bounds
            .iter()
            .map(|b| self.s(semantic::cast(&self.ir, b, &iv_dt, None)))
            .collect::<R<_>>()?;
        // Loop attributes of tl.range.
        let mut loop_attrs = Vec::new();
        if kind == "tl.range" {
            for (key, attr) in [
                ("num_stages", "tt.num_stages"),
                ("loop_unroll_factor", "tt.loop_unroll_factor"),
            ] {
                match args.kw(key) {
                    Some(Val::Int(n)) => loop_attrs.push((attr, self.ir.i32_attr(n as i64))),
                    Some(Val::None) | None => {}
                    Some(other) => {
                        return Err(self.err_at(
                            offset(call),
                            format!("{key} must be a constexpr integer, got {}", other.kind()),
                        ));
                    }
                }
            }
            for (key, attr) in [
                ("flatten", "tt.flatten"),
                ("disallow_acc_multi_buffer", "tt.disallow_acc_multi_buffer"),
                ("warp_specialize", "tt.warp_specialize"),
            ] {
                if let Some(true) = args.kw(key).and_then(|v| v.truthy()) {
                    loop_attrs.push((attr, self.ir.unit_attr()));
                }
            }
        }
        let names = self.loop_carried(&f.body);
        let carried = self.carried(names)?;
        let inits = carried.inits.clone();
        let iv_ty = Ty::scalar(iv_dt.clone());
        let mut block_types = vec![iv_ty.to_mlir(&self.ir)];
        block_types.extend(inits.iter().map(|t| t.ty.to_mlir(&self.ir)));
        let body = self.ir.new_block(&block_types);
        let before = self.vars.clone();
        self.bind_carried(&carried, |k| ir::block_arg(body, k + 1));
        let iv = Val::T(TV {
            v: ir::block_arg(body, 0),
            ty: iv_ty,
        });
        let saved = self.ir.block;
        self.ir.block = body;
        let iv = if reversed {
            let sum = semantic::emit_binary(&self.ir, Bin::Add, &bounds[0], &bounds[1]);
            let Val::T(i) = &iv else {
                unreachable!("the induction variable is a value")
            };
            let r = sum.and_then(|sum| semantic::emit_binary(&self.ir, Bin::Sub, &sum, i));
            match r {
                Ok(v) => Val::T(v),
                Err(e) => {
                    self.ir.block = saved;
                    ir::destroy_block(body);
                    return Err(self.err(e));
                }
            }
        } else {
            iv
        };
        self.dynamic += 1;
        let r = self
            .assign(&f.target, iv)
            .and_then(|()| self.block(&f.body))
            .and_then(|()| self.yield_carried(&carried, offset(f)));
        self.dynamic -= 1;
        self.ir.block = saved;
        if let Err(e) = r {
            ir::destroy_block(body);
            return Err(e);
        }
        self.set_loc(offset(f));
        let mut operands: Vec<Value> = bounds.iter().map(|b| b.v).collect();
        operands.extend(inits.iter().map(|t| t.v));
        let result_types: Vec<Type> = inits.iter().map(|t| t.ty.to_mlir(&self.ir)).collect();
        let region = self.ir.region_of(body);
        let op = self
            .ir
            .op("scf.for", &operands, &result_types, &[], vec![region]);
        for (name, attr) in loop_attrs {
            ir::set_attr(op, name, attr);
        }
        // Block argument 0 is the induction variable, k + 1 the k-th carried value.
        self.attach_argument_hints(op, &[body], |k| k.checked_sub(1).map(|k| inits[k].v));
        self.vars = before;
        self.bind_carried(&carried, |k| ir::result(op, k));
        Ok(())
    }

    /// The values `names` carry through a loop: their runtime leaves (numbers materialized,
    /// tuples flattened) and the structure to rebuild them from.
    fn carried(&mut self, names: Vec<String>) -> R<Carried> {
        let mut templates = Vec::new();
        let mut inits = Vec::new();
        for n in &names {
            let v = self.vars[n].clone();
            let m = self.materialize_carried(n, &v)?;
            flatten(&m, &mut inits);
            templates.push(m);
        }
        Ok(Carried {
            names,
            templates,
            inits,
        })
    }

    /// `v` with numbers as runtime scalars; only runtime values, numbers and tuples of them can
    /// be carried through dynamic control flow.
    fn materialize_carried(&mut self, name: &str, v: &Val) -> R<Val> {
        match v {
            Val::T(_) => Ok(v.clone()),
            Val::Tuple(items) => Ok(Val::Tuple(
                items
                    .iter()
                    .map(|i| self.materialize_carried(name, i))
                    .collect::<R<_>>()?,
            )),
            other if other.num().is_some() => Ok(Val::T(self.tensor(other)?)),
            other => Err(self.err(format!(
                "'{name}' (a {}) cannot change inside dynamic control flow",
                other.kind()
            ))),
        }
    }

    /// Binds each carried name to its structure over the values `value(k)` of its leaves.
    fn bind_carried(&mut self, c: &Carried, value: impl Fn(usize) -> Value) {
        let mut leaves = c.inits.iter().enumerate().map(|(k, t)| TV {
            v: value(k),
            ty: t.ty.clone(),
        });
        for (n, template) in c.names.iter().zip(&c.templates) {
            let v = rebuild(template, &mut leaves);
            self.vars.insert(n.clone(), v);
        }
    }

    /// Ends a loop body: yields the carried names, checking that their types did not change.
    fn yield_carried(&mut self, c: &Carried, at: usize) -> R<()> {
        let mut values = Vec::new();
        let mut k = 0;
        for n in &c.names {
            let v = self.vars[n].clone();
            self.yield_leaves(n, &v, &c.inits, &mut k, &mut values, at)?;
        }
        if k != c.inits.len() {
            return Err(self.err_at(at, "a loop-carried tuple changed its length in the loop"));
        }
        self.ir.op("scf.yield", &values, &[], &[], Vec::new());
        Ok(())
    }

    fn yield_leaves(
        &mut self,
        name: &str,
        v: &Val,
        inits: &[TV],
        k: &mut usize,
        out: &mut Vec<Value>,
        at: usize,
    ) -> R<()> {
        if let Val::Tuple(items) = v {
            for i in items {
                self.yield_leaves(name, i, inits, k, out, at)?;
            }
            return Ok(());
        }
        let Some(init) = inits.get(*k) else {
            return Err(self.err_at(
                at,
                format!("loop-carried variable '{name}' changed its structure in the loop"),
            ));
        };
        // A number gets its own type, as before the loop.
        let t = match self.materialize_carried(name, v)? {
            Val::T(t) => t,
            _ => {
                return Err(self.err_at(
                    at,
                    format!("loop-carried variable '{name}' changed its structure in the loop"),
                ));
            }
        };
        if t.ty != init.ty {
            return Err(self.err_at(
                at,
                format!(
                    "loop-carried variable '{name}' has type {} before the loop but {} at the end of its body; the type must stay the same",
                    init.ty.name(),
                    t.ty.name()
                ),
            ));
        }
        out.push(t.v);
        *k += 1;
        Ok(())
    }

    fn while_stmt(&mut self, w: &'s ast::StmtWhile) -> R<()> {
        if !w.orelse.is_empty() {
            return Err(self.err("while ... else is not supported"));
        }
        let names = self.loop_carried(&w.body);
        let carried = self.carried(names)?;
        let inits = carried.inits.clone();
        let types: Vec<Type> = inits.iter().map(|t| t.ty.to_mlir(&self.ir)).collect();
        let before_block = self.ir.new_block(&types);
        let after_block = self.ir.new_block(&types);
        let outer = self.vars.clone();
        let saved = self.ir.block;
        self.dynamic += 1;
        self.bind_carried(&carried, |k| ir::block_arg(before_block, k));
        self.ir.block = before_block;
        let r = (|| -> R<()> {
            let cond = self.expr(&w.test)?;
            self.set_loc(offset(w));
            let c = self.condition(&cond, "a while loop")?;
            let mut operands = vec![c.v];
            operands.extend((0..inits.len()).map(|k| ir::block_arg(before_block, k)));
            self.ir.op("scf.condition", &operands, &[], &[], Vec::new());
            self.vars = outer.clone();
            self.bind_carried(&carried, |k| ir::block_arg(after_block, k));
            self.ir.block = after_block;
            self.block(&w.body)?;
            self.yield_carried(&carried, offset(w))
        })();
        self.dynamic -= 1;
        self.ir.block = saved;
        if let Err(e) = r {
            ir::destroy_block(before_block);
            ir::destroy_block(after_block);
            return Err(e);
        }
        self.set_loc(offset(w));
        let operands: Vec<Value> = inits.iter().map(|t| t.v).collect();
        let regions = vec![
            self.ir.region_of(before_block),
            self.ir.region_of(after_block),
        ];
        let op = self.ir.op("scf.while", &operands, &types, &[], regions);
        self.attach_argument_hints(op, &[before_block, after_block], |k| Some(inits[k].v));
        self.vars = outer;
        self.bind_carried(&carried, |k| ir::result(op, k));
        Ok(())
    }

    // ----- expressions -----

    pub fn expr(&mut self, e: &'s ast::Expr) -> R<Val> {
        let saved = (self.at, self.ir.loc);
        self.set_loc(offset(e));
        let r = self.expr_inner(e);
        self.at = saved.0;
        self.ir.loc = saved.1;
        r
    }

    fn expr_inner(&mut self, e: &'s ast::Expr) -> R<Val> {
        let at = offset(e);
        match e {
            ast::Expr::Constant(c) => self.constant(&c.value),
            ast::Expr::Name(n) => self.name(n.id.as_str(), at),
            ast::Expr::Tuple(t) => Ok(Val::Tuple(
                t.elts.iter().map(|e| self.expr(e)).collect::<R<_>>()?,
            )),
            ast::Expr::List(t) => Ok(Val::Tuple(
                t.elts.iter().map(|e| self.expr(e)).collect::<R<_>>()?,
            )),
            ast::Expr::BinOp(b) => {
                let l = self.expr(&b.left)?;
                let r = self.expr(&b.right)?;
                self.set_loc(at);
                if matches!(b.op, ast::Operator::Pow | ast::Operator::MatMult) {
                    return match (b.op, &l, &r) {
                        (ast::Operator::Pow, Val::Int(x), Val::Int(y)) if *y >= 0 => {
                            u32::try_from(*y)
                                .ok()
                                .and_then(|y| x.checked_pow(y))
                                .map(Val::Int)
                                .ok_or_else(|| {
                                    self.err("integer overflow in a constexpr expression")
                                })
                        }
                        (ast::Operator::Pow, _, _) if l.num().is_some() && r.num().is_some() => {
                            let f = |v: &Val| match v {
                                Val::Int(i) => *i as f64,
                                Val::Float(f) => *f,
                                Val::Bool(b) => *b as i64 as f64,
                                _ => 0.0,
                            };
                            Ok(Val::Float(f(&l).powf(f(&r))))
                        }
                        (ast::Operator::Pow, _, _) => Err(self.err(
                            "** is only supported on constexprs; use tl.math functions on blocks",
                        )),
                        _ => Err(self.err("the @ operator is not supported; use tl.dot")),
                    };
                }
                self.binop(operator(b.op), l, r)
            }
            ast::Expr::UnaryOp(u) => {
                let v = self.expr(&u.operand)?;
                self.set_loc(at);
                self.unary(u.op, v)
            }
            ast::Expr::Compare(c) => {
                if c.ops.len() != 1 {
                    return Err(self.err("chained comparisons are not supported"));
                }
                let l = self.expr(&c.left)?;
                let r = self.expr(&c.comparators[0])?;
                self.set_loc(at);
                let op = match c.ops[0] {
                    ast::CmpOp::Lt => Bin::Lt,
                    ast::CmpOp::LtE => Bin::Le,
                    ast::CmpOp::Gt => Bin::Gt,
                    ast::CmpOp::GtE => Bin::Ge,
                    ast::CmpOp::Eq => Bin::Eq,
                    ast::CmpOp::NotEq => Bin::Ne,
                    ast::CmpOp::Is => return Ok(Val::Bool(same(&l, &r))),
                    ast::CmpOp::IsNot => return Ok(Val::Bool(!same(&l, &r))),
                    ast::CmpOp::In | ast::CmpOp::NotIn => {
                        let Val::Tuple(items) = &r else {
                            return Err(self.err("'in' needs a constexpr tuple on the right"));
                        };
                        let found = items.iter().any(|i| same(i, &l));
                        return Ok(Val::Bool(found == (c.ops[0] == ast::CmpOp::In)));
                    }
                };
                self.binop(op, l, r)
            }
            ast::Expr::BoolOp(b) => {
                let mut acc = self.expr(&b.values[0])?;
                for v in &b.values[1..] {
                    if let Some(t) = acc.truthy() {
                        // Python short-circuit on constexprs.
                        let is_and = b.op == ast::BoolOp::And;
                        if t != is_and {
                            return Ok(acc);
                        }
                        acc = self.expr(v)?;
                        continue;
                    }
                    let rhs = self.expr(v)?;
                    self.set_loc(at);
                    let l = self.tensor(&acc)?;
                    let l = self.s(semantic::cast(&self.ir, &l, &I1, None))?;
                    let r = self.tensor(&rhs)?;
                    let r = self.s(semantic::cast(&self.ir, &r, &I1, None))?;
                    let op = if b.op == ast::BoolOp::And {
                        Bin::And
                    } else {
                        Bin::Or
                    };
                    acc = Val::T(self.s(semantic::binary(
                        &self.ir,
                        op,
                        &Operand::T(l),
                        &Operand::T(r),
                    ))?);
                }
                Ok(acc)
            }
            ast::Expr::IfExp(i) => {
                let c = self.expr(&i.test)?;
                if let Some(b) = c.truthy() {
                    return self.expr(if b { &i.body } else { &i.orelse });
                }
                let a = self.expr(&i.body)?;
                let b = self.expr(&i.orelse)?;
                self.set_loc(at);
                crate::builtins::where_(self, c, a, b)
            }
            ast::Expr::Attribute(a) => {
                let v = self.expr(&a.value)?;
                self.set_loc(at);
                self.attribute(v, a.attr.as_str())
            }
            ast::Expr::Subscript(s) => {
                let v = self.expr(&s.value)?;
                let idx = self.expr(&s.slice)?;
                self.set_loc(at);
                self.subscript(v, idx)
            }
            ast::Expr::Slice(s) => {
                if s.lower.is_some() || s.upper.is_some() || s.step.is_some() {
                    return Err(self.err("only ':' slices are supported on blocks"));
                }
                Ok(Val::Slice)
            }
            ast::Expr::Call(c) => {
                let f = self.expr(&c.func)?;
                let args = self.call_args(c)?;
                self.set_loc(at);
                self.call(f, args)
            }
            ast::Expr::JoinedStr(_) => {
                Err(self.err("f-strings are not supported; use a plain string"))
            }
            ast::Expr::Starred(_) => Err(self.err("starred expressions are not supported")),
            ast::Expr::Lambda(_) => {
                Err(self.err("lambdas are not supported: use a @triton.jit function"))
            }
            _ => Err(self.err("unsupported expression in a Triton kernel")),
        }
    }

    fn call_args(&mut self, c: &'s ast::ExprCall) -> R<Args> {
        let mut pos = Vec::new();
        for a in &c.args {
            if let ast::Expr::Starred(s) = a {
                match self.expr(&s.value)? {
                    Val::Tuple(items) => pos.extend(items),
                    other => {
                        return Err(
                            self.err_at(offset(a), format!("cannot unpack {}", other.kind()))
                        );
                    }
                }
                continue;
            }
            pos.push(self.expr(a)?);
        }
        let mut kw = Vec::new();
        for k in &c.keywords {
            let Some(name) = &k.arg else {
                return Err(self.err_at(offset(k), "**kwargs are not supported"));
            };
            kw.push((name.to_string(), self.expr(&k.value)?));
        }
        Ok(Args { pos, kw })
    }

    fn constant(&mut self, c: &ast::Constant) -> R<Val> {
        Ok(match c {
            ast::Constant::None => Val::None,
            ast::Constant::Bool(b) => Val::Bool(*b),
            ast::Constant::Str(s) => Val::Str(s.clone()),
            ast::Constant::Int(i) => Val::Int(
                i.to_string()
                    .parse::<i128>()
                    .map_err(|_| self.err("integer literal is too large"))?,
            ),
            ast::Constant::Float(f) => Val::Float(*f),
            ast::Constant::Tuple(t) => {
                Val::Tuple(t.iter().map(|c| self.constant(c)).collect::<R<_>>()?)
            }
            ast::Constant::Ellipsis => return Err(self.err("'...' is not supported")),
            ast::Constant::Bytes(_) | ast::Constant::Complex { .. } => {
                return Err(self.err("bytes and complex literals are not supported"));
            }
        })
    }

    pub fn name(&mut self, id: &str, at: usize) -> R<Val> {
        if let Some(v) = self.vars.get(id) {
            return Ok(v.clone());
        }
        if let Some(v) = self.modules[self.cur].globals.get(id) {
            // `from helpers import f`: the function (or constexpr) of another module.
            if let Val::Module(path) = v
                && let Some(resolved) = self.resolve_other_module(path)
            {
                return Ok(resolved);
            }
            return Ok(v.clone());
        }
        if self.modules[self.cur].funcs.contains_key(id) {
            return Ok(Val::JitFn(self.cur, id.to_owned()));
        }
        match id {
            "range" | "min" | "max" | "len" | "float" | "int" | "bool" | "abs" | "print"
            | "isinstance" | "getattr" | "hasattr" | "tuple" | "list" | "enumerate" | "zip" => {
                Ok(Val::Module(format!("builtins.{id}")))
            }
            _ => Err(self.err_at(at, format!("name '{id}' is not defined"))),
        }
    }

    /// `path` (`pkg.helpers.f`, or `helpers.f` for a relative import of `pkg.helpers`) as a
    /// `@jit` function or constexpr global of one of the other modules given to the build.
    fn resolve_other_module(&self, path: &str) -> Option<Val> {
        let (module, item) = path.rsplit_once('.')?;
        let index = (2..self.modules.len()).find(|&i| {
            let name = &self.modules[i].name;
            name == module || name.ends_with(&format!(".{module}"))
        })?;
        if self.modules[index].funcs.contains_key(item) {
            return Some(Val::JitFn(index, item.to_owned()));
        }
        self.modules[index].globals.get(item).cloned()
    }

    fn attribute(&mut self, v: Val, attr: &str) -> R<Val> {
        match &v {
            Val::Module(m) => {
                let path = format!("{m}.{attr}");
                if let Some(resolved) = self.resolve_other_module(&path) {
                    return Ok(resolved);
                }
                if let Some(stripped) = path.strip_prefix("triton.language.")
                    && let Some(dt) = dtype_of_name(stripped)
                {
                    return Ok(Val::Dtype(dt));
                }
                Ok(Val::Module(path))
            }
            Val::T(t) => match attr {
                "dtype" => Ok(Val::Dtype(t.ty.dt.clone())),
                "shape" => Ok(Val::Tuple(
                    t.ty.shape.iter().map(|d| Val::Int(*d as i128)).collect(),
                )),
                "numel" => Ok(Val::Int(t.ty.numel() as i128)),
                "T" => crate::builtins::trans(self, t, None),
                "type" => Ok(Val::Dtype(t.ty.dt.clone())),
                _ if TENSOR_METHODS.contains(&attr) || matches!(t.ty.dt, Dt::Desc(_)) => {
                    Ok(Val::Method(Box::new(v.clone()), attr.to_owned()))
                }
                _ => Err(self.err(format!("a tensor has no attribute '{attr}'"))),
            },
            Val::Dtype(d) => match attr {
                "element_ty" => match d {
                    Dt::Ptr(e) => Ok(Val::Dtype((**e).clone())),
                    _ => Err(self.err(format!("{} has no element_ty", d.name()))),
                },
                "primitive_bitwidth" => Ok(Val::Int(d.bits() as i128)),
                "int_bitwidth" => Ok(Val::Int(d.bits() as i128)),
                "scalar" => Ok(v.clone()),
                _ => Ok(Val::Method(Box::new(v.clone()), attr.to_owned())),
            },
            Val::Tuple(_) => Ok(Val::Method(Box::new(v.clone()), attr.to_owned())),
            _ => Err(self.err(format!("{} has no attribute '{attr}'", v.kind()))),
        }
    }

    fn subscript(&mut self, v: Val, idx: Val) -> R<Val> {
        match (&v, &idx) {
            (Val::Tuple(items), Val::Int(i)) => {
                let n = items.len() as i128;
                let k = if *i < 0 { i + n } else { *i };
                items
                    .get(k as usize)
                    .cloned()
                    .filter(|_| (0..n).contains(&k))
                    .ok_or_else(|| self.err(format!("tuple index {i} out of range")))
            }
            (Val::T(t), _) => {
                let parts = match idx {
                    Val::Tuple(p) => p,
                    other => vec![other],
                };
                let mut cur = t.clone();
                let mut dim = 0usize;
                for p in parts {
                    match p {
                        Val::None => {
                            cur = self.s(semantic::expand_dims(&self.ir, &cur, dim))?;
                            dim += 1;
                        }
                        Val::Slice => dim += 1,
                        other => {
                            return Err(self.err(format!(
                                "blocks can only be indexed with None and ':' (got {})",
                                other.kind()
                            )));
                        }
                    }
                }
                if dim > cur.ty.shape.len() {
                    return Err(self.err(format!(
                        "too many indices for a block of rank {}",
                        t.ty.shape.len()
                    )));
                }
                Ok(Val::T(cur))
            }
            _ => Err(self.err(format!("{} cannot be indexed by {}", v.kind(), idx.kind()))),
        }
    }

    /// `l op r`: Python arithmetic on constexprs, Triton's semantics otherwise.
    pub fn binop(&mut self, op: Bin, l: Val, r: Val) -> R<Val> {
        if let (Some(a), Some(b)) = (l.num(), r.num()) {
            return self.const_binop(op, a, b);
        }
        if let (Val::Str(a), Val::Str(b), Bin::Add) = (&l, &r, op) {
            return Ok(Val::Str(format!("{a}{b}")));
        }
        if let (Val::Tuple(a), Val::Tuple(b), Bin::Add) = (&l, &r, op) {
            return Ok(Val::Tuple(a.iter().chain(b).cloned().collect()));
        }
        if l.is_const() && r.is_const() {
            return match op {
                Bin::Eq => Ok(Val::Bool(same(&l, &r))),
                Bin::Ne => Ok(Val::Bool(!same(&l, &r))),
                _ => Err(self.err(format!(
                    "unsupported operand types for {}: {} and {}",
                    op.symbol(),
                    l.kind(),
                    r.kind()
                ))),
            };
        }
        let a = self.operand(&l, op)?;
        let b = self.operand(&r, op)?;
        Ok(Val::T(self.s(semantic::binary(&self.ir, op, &a, &b))?))
    }

    fn operand(&self, v: &Val, op: Bin) -> R<Operand> {
        match v {
            Val::T(t) => Ok(Operand::T(t.clone())),
            other => other.num().map(Operand::Num).ok_or_else(|| {
                self.err(format!(
                    "unsupported operand type for {}: {}",
                    op.symbol(),
                    other.kind()
                ))
            }),
        }
    }

    fn const_binop(&self, op: Bin, a: Num, b: Num) -> R<Val> {
        use Num::*;
        let as_int = |n: Num| match n {
            Int(i) => Some(i),
            Bool(b) => Some(b as i128),
            Float(_) => None,
        };
        let as_f = |n: Num| match n {
            Int(i) => i as f64,
            Bool(b) => b as i64 as f64,
            Float(f) => f,
        };
        if let (Some(x), Some(y)) = (as_int(a), as_int(b)) {
            let both_bool = matches!((a, b), (Bool(_), Bool(_)));
            let overflow = || self.err("integer overflow in a constexpr expression");
            return Ok(match op {
                Bin::Add => Val::Int(x.checked_add(y).ok_or_else(overflow)?),
                Bin::Sub => Val::Int(x.checked_sub(y).ok_or_else(overflow)?),
                Bin::Mul => Val::Int(x.checked_mul(y).ok_or_else(overflow)?),
                Bin::Div => {
                    if y == 0 {
                        return Err(self.err("division by zero"));
                    }
                    Val::Float(x as f64 / y as f64)
                }
                Bin::FloorDiv | Bin::Mod => {
                    if y == 0 {
                        return Err(self.err("integer division or modulo by zero"));
                    }
                    // Python floors toward negative infinity.
                    let q = x.checked_div(y).ok_or_else(overflow)?;
                    let fq = if (x % y != 0) && ((x < 0) != (y < 0)) {
                        q - 1
                    } else {
                        q
                    };
                    if op == Bin::FloorDiv {
                        Val::Int(fq)
                    } else {
                        Val::Int(x - fq * y)
                    }
                }
                Bin::And if both_bool => Val::Bool(x & y != 0),
                Bin::Or if both_bool => Val::Bool(x | y != 0),
                Bin::And => Val::Int(x & y),
                Bin::Or => Val::Int(x | y),
                Bin::Xor => Val::Int(x ^ y),
                Bin::Shl | Bin::Shr if !(0..=126).contains(&y) => {
                    return Err(self.err(format!("shift count {y} is out of range")));
                }
                Bin::Shl => Val::Int(x.checked_shl(y as u32).ok_or_else(overflow)?),
                Bin::Shr => Val::Int(x >> (y as u32)),
                Bin::Lt => Val::Bool(x < y),
                Bin::Le => Val::Bool(x <= y),
                Bin::Gt => Val::Bool(x > y),
                Bin::Ge => Val::Bool(x >= y),
                Bin::Eq => Val::Bool(x == y),
                Bin::Ne => Val::Bool(x != y),
                Bin::Max(_) => Val::Int(x.max(y)),
                Bin::Min(_) => Val::Int(x.min(y)),
            });
        }
        let (x, y) = (as_f(a), as_f(b));
        Ok(match op {
            Bin::Add => Val::Float(x + y),
            Bin::Sub => Val::Float(x - y),
            Bin::Mul => Val::Float(x * y),
            Bin::Div => Val::Float(x / y),
            Bin::FloorDiv => Val::Float((x / y).floor()),
            Bin::Mod => Val::Float(x - (x / y).floor() * y),
            Bin::Lt => Val::Bool(x < y),
            Bin::Le => Val::Bool(x <= y),
            Bin::Gt => Val::Bool(x > y),
            Bin::Ge => Val::Bool(x >= y),
            Bin::Eq => Val::Bool(x == y),
            Bin::Ne => Val::Bool(x != y),
            Bin::Max(_) => Val::Float(x.max(y)),
            Bin::Min(_) => Val::Float(x.min(y)),
            _ => return Err(self.err(format!("operator {} needs integers", op.symbol()))),
        })
    }

    fn unary(&mut self, op: ast::UnaryOp, v: Val) -> R<Val> {
        match (op, &v) {
            (ast::UnaryOp::Not, _) if v.truthy().is_some() => {
                Ok(Val::Bool(!v.truthy().unwrap_or(false)))
            }
            (ast::UnaryOp::USub, Val::Int(i)) => i
                .checked_neg()
                .map(Val::Int)
                .ok_or_else(|| self.err("integer overflow in a constexpr expression")),
            (ast::UnaryOp::USub, Val::Float(f)) => Ok(Val::Float(-f)),
            (ast::UnaryOp::USub, Val::Bool(b)) => Ok(Val::Int(-(*b as i128))),
            (ast::UnaryOp::UAdd, _) if v.num().is_some() => Ok(v),
            (ast::UnaryOp::Invert, Val::Int(i)) => Ok(Val::Int(!i)),
            (ast::UnaryOp::UAdd, Val::T(_)) => Ok(v),
            (ast::UnaryOp::USub, Val::T(t)) => {
                if t.ty.dt.is_ptr() {
                    return Err(self.err("cannot negate a pointer"));
                }
                self.binop(Bin::Sub, Val::T(self.zero_like(t)?), v)
            }
            (ast::UnaryOp::Invert, Val::T(t)) => {
                if !t.ty.dt.is_int() {
                    return Err(
                        self.err(format!("~ needs an integer operand, got {}", t.ty.name()))
                    );
                }
                let ones = self.s(semantic::constant(&self.ir, Num::Int(-1), &t.ty))?;
                self.binop(Bin::Xor, v.clone(), Val::T(ones))
            }
            (ast::UnaryOp::Not, Val::T(t)) => {
                let b = self.s(semantic::cast(&self.ir, t, &I1, None))?;
                let one = self.s(semantic::constant(&self.ir, Num::Bool(true), &b.ty))?;
                Ok(Val::T(self.s(semantic::emit_binary(
                    &self.ir,
                    Bin::Xor,
                    &b,
                    &one,
                ))?))
            }
            _ => Err(self.err(format!(
                "unsupported operand type for unary operator: {}",
                v.kind()
            ))),
        }
    }

    fn zero_like(&self, t: &TV) -> R<TV> {
        self.s(semantic::constant(&self.ir, Num::Int(0), &t.ty))
    }

    fn call(&mut self, f: Val, args: Args) -> R<Val> {
        match f {
            Val::JitFn(module, name) => self.call_jit(module, &name, args),
            Val::Module(path) => crate::builtins::call(self, &path, args),
            Val::Method(recv, name) => crate::builtins::method(self, *recv, &name, args),
            Val::Dtype(d) => {
                // `tl.float32(x)`-style conversions of constexprs.
                match args.pos.first() {
                    Some(v) if v.num().is_some() => Ok(v.clone()),
                    Some(Val::T(t)) => Ok(Val::T(self.s(semantic::cast(&self.ir, t, &d, None))?)),
                    _ => Err(self.err(format!("cannot call dtype {}", d.name()))),
                }
            }
            other => Err(self.err(format!("{} is not callable", other.kind()))),
        }
    }
}

/// The methods of `tl.tensor` (each the `tl` function of the same name on the receiver).
const TENSOR_METHODS: &[&str] = &[
    "to",
    "sum",
    "max",
    "min",
    "argmax",
    "argmin",
    "reduce",
    "xor_sum",
    "cumsum",
    "cumprod",
    "associative_scan",
    "reshape",
    "view",
    "trans",
    "permute",
    "expand_dims",
    "broadcast_to",
    "split",
    "ravel",
    "sort",
    "flip",
    "softmax",
    "exp",
    "exp2",
    "log",
    "log2",
    "sin",
    "cos",
    "sqrt",
    "rsqrt",
    "abs",
    "floor",
    "ceil",
    "erf",
    "sigmoid",
    "histogram",
    "cast",
];

fn build_ret(shape: &RetShape, outs: &mut impl Iterator<Item = TV>) -> Val {
    match shape {
        RetShape::None => Val::None,
        RetShape::Leaf => Val::T(outs.next().expect("one result per leaf")),
        RetShape::Tuple(items) => Val::Tuple(items.iter().map(|s| build_ret(s, outs)).collect()),
    }
}

fn shape_of(v: &Val) -> RetShape {
    match v {
        Val::T(_) => RetShape::Leaf,
        Val::Tuple(items) => RetShape::Tuple(items.iter().map(shape_of).collect()),
        _ => RetShape::None,
    }
}

fn literal_val(l: &Literal) -> Val {
    match l {
        Literal::Int(i) => Val::Int(*i),
        Literal::Float(f) => Val::Float(*f),
        Literal::Bool(b) => Val::Bool(*b),
        Literal::Str(s) => Val::Str(s.clone()),
        Literal::Dtype(d) => Val::Dtype(d.clone()),
        Literal::None => Val::None,
    }
}

/// The parameters of a function, positional-only first.
pub fn params_of(def: &ast::StmtFunctionDef) -> Vec<&ast::ArgWithDefault> {
    def.args
        .posonlyargs
        .iter()
        .chain(def.args.args.iter())
        .chain(def.args.kwonlyargs.iter())
        .collect()
}

/// Whether an annotation says `tl.constexpr` (or `constexpr`, `triton.language.constexpr`).
pub fn annotation_is_constexpr(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Name(n) => n.id.as_str() == "constexpr",
        ast::Expr::Attribute(a) => a.attr.as_str() == "constexpr",
        ast::Expr::Constant(ast::ExprConstant {
            value: ast::Constant::Str(s),
            ..
        }) => s.ends_with("constexpr"),
        _ => false,
    }
}

fn operator(op: ast::Operator) -> Bin {
    match op {
        ast::Operator::Add => Bin::Add,
        ast::Operator::Sub => Bin::Sub,
        ast::Operator::Mult => Bin::Mul,
        ast::Operator::Div => Bin::Div,
        ast::Operator::FloorDiv => Bin::FloorDiv,
        ast::Operator::Mod => Bin::Mod,
        ast::Operator::BitAnd => Bin::And,
        ast::Operator::BitOr => Bin::Or,
        ast::Operator::BitXor => Bin::Xor,
        ast::Operator::LShift => Bin::Shl,
        ast::Operator::RShift => Bin::Shr,
        // `**` and `@` are handled before this is reached.
        ast::Operator::Pow | ast::Operator::MatMult => Bin::Mul,
    }
}

fn stmt_kind(s: &ast::Stmt) -> &'static str {
    match s {
        ast::Stmt::With(_) => "with",
        ast::Stmt::Try(_) | ast::Stmt::TryStar(_) => "try",
        ast::Stmt::Raise(_) => "raise",
        ast::Stmt::ClassDef(_) => "class",
        ast::Stmt::Delete(_) => "del",
        ast::Stmt::Global(_) => "global",
        ast::Stmt::Nonlocal(_) => "nonlocal",
        ast::Stmt::Match(_) => "match",
        ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::AsyncFor(_) | ast::Stmt::AsyncWith(_) => {
            "async"
        }
        _ => "this statement",
    }
}

/// `tl.<name>` dtypes.
pub fn dtype_of_name(name: &str) -> Option<Dt> {
    Some(match name {
        "int1" => I1,
        "int8" | "int16" | "int32" | "int64" | "uint8" | "uint16" | "uint32" | "uint64"
        | "float16" | "bfloat16" | "float32" | "float64" | "float8e4nv" | "float8e5" => {
            Dt::parse(name)?
        }
        "void" => Dt::Void,
        _ => return None,
    })
}
