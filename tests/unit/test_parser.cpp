// The parser: AST shapes for every construct, exact syntax error messages and positions, the
// robustness guards, and the REPL's continuation check.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "grammar/parser.h"

namespace weft::syntax {
std::string compareWithAntlrLexer(std::string_view text);  // token_source.cpp, for this test
}

namespace {

using namespace weft;
using namespace weft::ast;

std::unique_ptr<Program> parse(const std::string& text, Diagnostics& diags) {
  return parseProgram(std::make_shared<SourceFile>("t.model", text), diags);
}

// "LINE:COL: MESSAGE" for each error.
std::vector<std::string> errorsOf(const std::string& text) {
  Diagnostics diags;
  parse(text, diags);
  std::vector<std::string> out;
  for (const auto& d : diags.all())
    out.push_back(std::to_string(d.at.begin.line) + ":" + std::to_string(d.at.begin.col) + ": " + d.message);
  return out;
}

std::string firstError(const std::string& text) {
  auto errors = errorsOf(text);
  return errors.empty() ? "" : errors[0];
}

// A compact s-expression of the AST, to compare shapes.
std::string show(const Expr* e);
std::string show(const Block& b);

std::string name(Symbol s) { return symbolName(s); }

std::string show(const std::vector<Param>& params) {
  std::string s;
  for (const Param& p : params) {
    s += (s.empty() ? "" : " ") + name(p.name);
    if (p.type) {
      s += ":" + p.type->base;
      if (p.type->hasDims) {
        s += "[";
        for (size_t i = 0; i < p.type->dims.size(); ++i)
          s += (i ? "," : "") + (p.type->dims[i] ? std::to_string(*p.type->dims[i]) : "None");
        s += "]";
      }
    }
    if (p.defaultValue) s += "=" + show(p.defaultValue.get());
  }
  return s;
}

template <class T>
std::string items(const char* head, const std::vector<T>& xs) {
  std::string s = std::string("(") + head;
  for (const auto& x : xs) s += " " + show(x.get());
  return s + ")";
}

std::string show(const Expr* e) {
  if (!e) return "_";
  switch (e->kind) {
    case ExprKind::Int: return std::to_string(static_cast<const IntLit*>(e)->value);
    case ExprKind::Float: {
      std::ostringstream o;
      o << static_cast<const FloatLit*>(e)->value << "f";
      return o.str();
    }
    case ExprKind::String: return "'" + static_cast<const StringLit*>(e)->value + "'";
    case ExprKind::Bool: return static_cast<const BoolLit*>(e)->value ? "true" : "false";
    case ExprKind::None: return "none";
    case ExprKind::Name: return name(static_cast<const Name*>(e)->name);
    case ExprKind::Attribute: {
      auto* a = static_cast<const Attribute*>(e);
      return "(. " + show(a->object.get()) + " " + name(a->name) + ")";
    }
    case ExprKind::Index: {
      auto* a = static_cast<const Index*>(e);
      std::string s = "([] " + show(a->object.get());
      for (auto& i : a->items) s += " " + show(i.get());
      return s + ")";
    }
    case ExprKind::Slice: {
      auto* a = static_cast<const Slice*>(e);
      return "(: " + show(a->lower.get()) + " " + show(a->upper.get()) + " " + show(a->step.get()) + ")";
    }
    case ExprKind::Ellipsis: return "...";
    case ExprKind::Call: {
      auto* a = static_cast<const Call*>(e);
      std::string s = "(call " + show(a->callee.get());
      for (auto& arg : a->args) s += " " + (arg.keyword ? name(*arg.keyword) + "=" : "") + show(arg.value.get());
      return s + ")";
    }
    case ExprKind::Unary: {
      auto* a = static_cast<const Unary*>(e);
      const char* op = a->op == UnaryOp::Neg ? "neg" : a->op == UnaryOp::Pos ? "pos" : "not";
      return std::string("(") + op + " " + show(a->operand.get()) + ")";
    }
    case ExprKind::Binary: {
      auto* a = static_cast<const Binary*>(e);
      return std::string("(") + binaryOpText(a->op) + " " + show(a->lhs.get()) + " " + show(a->rhs.get()) + ")";
    }
    case ExprKind::Compare: {
      auto* a = static_cast<const Compare*>(e);
      std::string s = "(cmp " + show(a->operands[0].get());
      for (size_t i = 0; i < a->ops.size(); ++i)
        s += std::string(" ") + compareOpText(a->ops[i]) + " " + show(a->operands[i + 1].get());
      return s + ")";
    }
    case ExprKind::Logical: {
      auto* a = static_cast<const Logical*>(e);
      return std::string("(") + (a->isAnd ? "and " : "or ") + show(a->lhs.get()) + " " + show(a->rhs.get()) + ")";
    }
    case ExprKind::Conditional: {
      auto* a = static_cast<const Conditional*>(e);
      return "(if " + show(a->condition.get()) + " " + show(a->thenValue.get()) + " " + show(a->elseValue.get()) + ")";
    }
    case ExprKind::Lambda: {
      auto* a = static_cast<const Lambda*>(e);
      return "(fn (" + show(a->params) + ") " + show(a->body.get()) + ")";
    }
    case ExprKind::List: {
      auto* l = static_cast<const ListExpr*>(e);
      return items(l->isSet ? "set" : "list", l->items);
    }
    case ExprKind::Tuple: return items("tuple", static_cast<const TupleExpr*>(e)->items);
    case ExprKind::Dict: {
      std::string s = "(dict";
      for (auto& [k, v] : static_cast<const DictExpr*>(e)->entries) s += " " + show(k.get()) + ":" + show(v.get());
      return s + ")";
    }
    case ExprKind::ListComp:
    case ExprKind::FString: break;  // shown as "?": the tests here never print them
  }
  return "?";
}

std::string show(const Stmt* s) {
  switch (s->kind) {
    case StmtKind::Expr: return show(static_cast<const ExprStmt*>(s)->expr.get());
    case StmtKind::Assign: {
      auto* a = static_cast<const Assign*>(s);
      std::string out = "(=";
      for (auto& t : a->targets) out += " " + show(t.get());
      return out + " " + show(a->value.get()) + ")";
    }
    case StmtKind::AugAssign: {
      auto* a = static_cast<const AugAssign*>(s);
      return std::string("(") + binaryOpText(a->op) + "= " + show(a->target.get()) + " " + show(a->value.get()) + ")";
    }
    case StmtKind::If: {
      auto* a = static_cast<const If*>(s);
      std::string out = "(if";
      for (auto& b : a->branches) out += " " + show(b.condition.get()) + " " + show(b.body);
      return out + (a->hasElse ? " else " + show(a->elseBody) : "") + ")";
    }
    case StmtKind::For: {
      auto* a = static_cast<const For*>(s);
      return "(for " + show(a->target.get()) + " " + show(a->iterable.get()) + " " + show(a->body) + ")";
    }
    case StmtKind::While: {
      auto* a = static_cast<const While*>(s);
      return "(while " + show(a->condition.get()) + " " + show(a->body) + ")";
    }
    case StmtKind::Break: return "break";
    case StmtKind::Continue: return "continue";
    case StmtKind::Pass: return "pass";
    case StmtKind::Return: return "(return " + show(static_cast<const Return*>(s)->value.get()) + ")";
    case StmtKind::Assert: {
      auto* a = static_cast<const Assert*>(s);
      return "(assert " + show(a->condition.get()) + " " + show(a->message.get()) + ")";
    }
    case StmtKind::With: {
      auto* a = static_cast<const With*>(s);
      return "(with " + show(a->context.get()) + (a->as ? " as " + name(*a->as) : "") + " " + show(a->body) + ")";
    }
    case StmtKind::Import: {
      auto* a = static_cast<const Import*>(s);
      return "(import " + std::string(a->isPath ? "path " : "") + a->module + (a->as ? " as " + name(*a->as) : "") + ")";
    }
    case StmtKind::FromImport: {
      auto* a = static_cast<const FromImport*>(s);
      std::string out = "(from " + std::string(a->isPath ? "path " : "") + a->module;
      for (auto& i : a->items) out += " " + name(i.name) + (i.as ? " as " + name(*i.as) : "");
      return out + ")";
    }
    case StmtKind::Fn: {
      auto* a = static_cast<const FnDecl*>(s);
      std::string out = "(fn";
      for (auto& d : a->decorators) out += " @" + show(d.expr.get());
      out += " " + name(a->name) + " (" + show(a->params) + ")";
      if (a->returnType) out += " -> " + a->returnType->base + (a->returnType->hasDims ? "[..]" : "");
      return out + " " + show(a->body) + ")";
    }
    case StmtKind::Module: {
      auto* a = static_cast<const ModuleDecl*>(s);
      return "(module " + name(a->name) + " (" + show(a->params) + ") " + show(a->body) + ")";
    }
    case StmtKind::Mesh: {
      auto* a = static_cast<const MeshDecl*>(s);
      std::string out = "(mesh " + name(a->name);
      for (auto& d : a->dims) out += " " + name(d.name) + "=" + show(d.size.get());
      return out + ")";
    }
    case StmtKind::LayoutMap: {
      auto* a = static_cast<const LayoutMapDecl*>(s);
      std::string out = "(layout_map " + name(a->name) + " on " + name(a->mesh);
      for (auto& e : a->entries) {
        out += " '" + e.key + "':[";
        for (size_t i = 0; i < e.dims.size(); ++i) out += (i ? "," : "") + (e.dims[i] ? name(*e.dims[i]) : "_");
        out += "]";
      }
      return out + ")";
    }
  }
  return "?";
}

std::string show(const Block& b) {
  std::string s = "{";
  for (size_t i = 0; i < b.size(); ++i) s += (i ? " " : "") + show(b[i].get());
  return s + "}";
}

// The program's statements, one string each; fails the test on any error.
std::vector<std::string> shapes(const std::string& text) {
  Diagnostics diags;
  auto program = parse(text, diags);
  for (const auto& d : diags.all()) FAIL_CHECK(formatDiagnostic(d));
  std::vector<std::string> out;
  for (const auto& s : program->body) out.push_back(show(s.get()));
  return out;
}

std::string shape(const std::string& text) {
  auto all = shapes(text);
  REQUIRE(all.size() == 1);
  return all[0];
}

}  // namespace

TEST_CASE("parser: literals") {
  CHECK(shape("x = 3") == "(= x 3)");
  CHECK(shape("x = 3.0, .5, 1e-3, 2., 1.5e2") == "(= x (tuple 3f 0.5f 0.001f 2f 150f))");
  CHECK(shape(R"(s = "a\tb\n" + 'it\'s' + "q\"\\")") == "(= s (+ (+ 'a\tb\n' 'it's') 'q\"\\'))");
  CHECK(shape("s = \"\"\"two\nlines\"\"\"") == "(= s 'two\nlines')");
  CHECK(shape("x = [true, false, none, None]") == "(= x (list true false none none))");
}

TEST_CASE("parser: operator precedence follows Python") {
  CHECK(shape("1 + 2 * 3") == "(+ 1 (* 2 3))");
  CHECK(shape("(1 + 2) * 3") == "(* (+ 1 2) 3)");
  CHECK(shape("1 - 2 - 3") == "(- (- 1 2) 3)");
  CHECK(shape("-2**2") == "(neg (** 2 2))");
  CHECK(shape("2**-1") == "(** 2 (neg 1))");
  CHECK(shape("2**3**2") == "(** 2 (** 3 2))");
  CHECK(shape("-a * b") == "(* (neg a) b)");
  CHECK(shape("a @ b // c % d / e") == "(/ (% (// (@ a b) c) d) e)");
  CHECK(shape("a if b else c") == "(if b a c)");
  CHECK(shape("a if b else c if d else e") == "(if b a (if d c e))");
  CHECK(shape("a or b and not c") == "(or a (and b (not c)))");
  CHECK(shape("not a == b") == "(not (cmp a == b))");
  CHECK(shape("a + 1 < b * 2") == "(cmp (+ a 1) < (* b 2))");
}

TEST_CASE("parser: chained comparisons are one node") {
  CHECK(shape("a < b <= c") == "(cmp a < b <= c)");
  CHECK(shape("a == b != c > d >= e") == "(cmp a == b != c > d >= e)");
  CHECK(shape("(a < b) < c") == "(cmp (cmp a < b) < c)");
  CHECK(shape("x in xs and y not in ys") == "(and (cmp x in xs) (cmp y not in ys))");
}

TEST_CASE("parser: tuples, parentheses, lists, dicts") {
  CHECK(shape("x = (a)") == "(= x a)");
  CHECK(shape("x = (a,)") == "(= x (tuple a))");
  CHECK(shape("x = ()") == "(= x (tuple))");
  CHECK(shape("x = (a, b)") == "(= x (tuple a b))");
  CHECK(shape("x = a, b") == "(= x (tuple a b))");
  CHECK(shape("x = [a, [b], []]") == "(= x (list a (list b) (list)))");
  CHECK(shape("x = {\"k\": 1, 'j': [2]}") == "(= x (dict 'k':1 'j':(list 2)))");
  CHECK(shape("x = {}") == "(= x (dict))");
  CHECK(shape("x = {\n  \"a\": 1\n  \"b\": 2\n}") == "(= x (dict 'a':1 'b':2))");
  CHECK(shape("x = {a, 1,}") == "(= x (set a 1))");
  CHECK(shape("x = {\n  a\n  b\n}") == "(= x (set a b))");
  // Inside a literal's braces a line may start or end mid-entry, as in Python.
  CHECK(shape("x = {\"a\":\n  1, \"b\"\n  : 2}") == "(= x (dict 'a':1 'b':2))");
  CHECK(shape("x = {\"a\": 1\n  , \"b\": 2\n}") == "(= x (dict 'a':1 'b':2))");
  CHECK(shape("x = {k: 1\n  for k in ks\n  if k}") == shape("x = {k: 1 for k in ks if k}"));
  CHECK(shape("x = {a\n  if c\n  else b}") == "(= x (set (if c a b)))");
  // In a block, a line is still a statement.
  CHECK_FALSE(errorsOf("if a {\n  x = 1\n  , 2\n}").empty());
  CHECK(shape("a | b & c - d < e") == "(cmp (| a (& b (- c d))) < e)");
  CHECK(shape("s |= t") == "(|= s t)");
}

TEST_CASE("parser: a brace after an expression opens a block, elsewhere a dict") {
  CHECK(shape("if x { y = 1 }") == "(if x {(= y 1)})");
  CHECK(shape("if x == {} { }") == "(if (cmp x == (dict)) {})");
  CHECK(shape("while d[\"k\"] { d = {\"k\": 0} }") == "(while ([] d 'k') {(= d (dict 'k':0))})");
}

TEST_CASE("parser: trailing commas") {
  CHECK(shape("f(a, k=v,)") == "(call f a k=v)");
  CHECK(shape("x = [1, 2,]") == "(= x (list 1 2))");
  CHECK(shape("x = {1: 2,}") == "(= x (dict 1:2))");
  CHECK(shape("fn f(a, b=1,) { }") == "(fn f (a b=1) {})");
  CHECK(shape("x = a[1,]") == "(= x ([] a 1))");
}

TEST_CASE("parser: calls, attributes, indexing and slices") {
  CHECK(shape("f(x, axis=1)") == "(call f x axis=1)");
  CHECK(shape("a.b.c(d)[e]") == "([] (call (. (. a b) c) d) e)");
  CHECK(shape("a[:, 1:3]") == "([] a (: _ _ _) (: 1 3 _))");
  CHECK(shape("a[::2]") == "([] a (: _ _ 2))");
  CHECK(shape("a[1::]") == "([] a (: 1 _ _))");
  CHECK(shape("a[..., -1]") == "([] a ... (neg 1))");
  CHECK(shape("a[i, j]") == "([] a i j)");
  CHECK(shape("layout.mesh") == "(. layout mesh)");
  CHECK(shape("Layout(dims, mesh=grid)") == "(call Layout dims mesh=grid)");
}

TEST_CASE("parser: lambdas") {
  CHECK(shape("g = fn(x, y) => x * y") == "(= g (fn (x y) (* x y)))");
  CHECK(shape("map(fn(x) => x if x > 0 else -x, xs)") == "(call map (fn (x) (if (cmp x > 0) x (neg x))) xs)");
  CHECK(shape("k = fn() => fn(y=2) => y") == "(= k (fn () (fn (y=2) y)))");
}

TEST_CASE("parser: assignments and their targets") {
  CHECK(shape("a = b = c") == "(= a b c)");
  CHECK(shape("a, b = 1, 2") == "(= (tuple a b) (tuple 1 2))");
  CHECK(shape("(a, b), (c, d) = fashion_mnist()") == "(= (tuple (tuple a b) (tuple c d)) (call fashion_mnist))");
  CHECK(shape("[a, b] = xs") == "(= (list a b) xs)");
  CHECK(shape("obj.attr = 3") == "(= (. obj attr) 3)");
  CHECK(shape("xs[i] = 4") == "(= ([] xs i) 4)");
  CHECK(shapes("x += 1\nx -= 2\nx *= 3\nx /= 4\nv.w //= 5") ==
        std::vector<std::string>{"(+= x 1)", "(-= x 2)", "(*= x 3)", "(/= x 4)", "(//= (. v w) 5)"});
}

TEST_CASE("parser: simple statements") {
  CHECK(shapes("break\ncontinue\npass") == std::vector<std::string>{"break", "continue", "pass"});
  CHECK(shape("fn f() { return }") == "(fn f () {(return _)})");
  CHECK(shape("fn f() { return a, b }") == "(fn f () {(return (tuple a b))})");
  CHECK(shapes("assert x\nassert x > 0, \"msg\"") == std::vector<std::string>{"(assert x _)", "(assert (cmp x > 0) 'msg')"});
}

TEST_CASE("parser: imports") {
  CHECK(shapes("import nn\nimport nn as n\nimport \"path/file.model\" as m") ==
        std::vector<std::string>{"(import nn)", "(import nn as n)", "(import path path/file.model as m)"});
  CHECK(shape("from nn import Dense, relu as r") == "(from nn Dense relu as r)");
  CHECK(shape("from \"x.model\" import f") == "(from path x.model f)");
  CHECK(shape("from nn import (\n  Dense,\n  relu,\n)") == "(from nn Dense relu)");
}

TEST_CASE("parser: blocks") {
  CHECK(shape("if a { x } elif b { y } else { z }") == "(if a {x} b {y} else {z})");
  CHECK(shape("if a {\n  x\n}\nelif b {\n  y\n}\n# comment\nelse {\n  z\n}") == "(if a {x} b {y} else {z})");
  CHECK(shape("for x in range(3) { print(x) }") == "(for x (call range 3) {(call print x)})");
  CHECK(shape("for a, (b, c) in e {\n}") == "(for (tuple a (tuple b c)) e {})");
  CHECK(shape("while c { x = x - 1 }") == "(while c {(= x (- x 1))})");
  CHECK(shape("with e { }") == "(with e {})");
  CHECK(shape("with layout_map_scope(s) as n { f(n) }") == "(with (call layout_map_scope s) as n {(call f n)})");
}

TEST_CASE("parser: functions and decorators") {
  CHECK(shape("fn name(a: f32[], b: f32[None, 784] = zeros([3]), c=1) -> f32[] {\n  return a\n}") ==
        "(fn name (a:f32[] b:f32[None,784]=(call zeros (list 3)) c=1) -> f32[..] {(return a)})");
  CHECK(shape("fn g(x: int, s: str) -> None { }") == "(fn g (x:int s:str) -> none {})");
  CHECK(shape("@function\nfn f(a: f32[10]) { }") == "(fn @function f (a:f32[10]) {})");
  CHECK(shape("@function(jit=true) fn f() { }") == "(fn @(call function jit=true) f () {})");
  CHECK(shape("@nn.function\n@other()\nfn f() { }") == "(fn @(. nn function) @(call other) f () {})");
  CHECK(shape("fn outer() {\n  fn inner(x) { return x }\n  return inner\n}") ==
        "(fn outer () {(fn inner (x) {(return x)}) (return inner)})");
}

TEST_CASE("parser: modules, meshes and layout maps") {
  CHECK(shape("module DemoModule(init_value: f32[] = 0.0) {\n"
              "  x = Variable(init_value, trainable=true)\n"
              "  @function\n"
              "  fn addprint(a: f32[]) -> f32[] {\n    x += a\n    return x\n  }\n"
              "}") ==
        "(module DemoModule (init_value:f32[]=0f) {(= x (call Variable init_value trainable=true)) "
        "(fn @function addprint (a:f32[]) -> f32[..] {(+= x a) (return x)})})");
  CHECK(shape("module Empty { }") == "(module Empty () {})");
  CHECK(shape("mesh grid(batch=2, model=4)") == "(mesh grid batch=2 model=4)");
  CHECK(shape("layout_map shard on grid {\n"
              "  \"d1.kernel\": [_, model]   # dim 0 unsharded\n"
              "  \"d1.bias\":   [model]\n"
              "  \"d2\\\\..*\":    [model, _], \"x\": []\n"
              "}") == "(layout_map shard on grid 'd1.kernel':[_,model] 'd1.bias':[model] 'd2\\..*':[model,_] 'x':[])");
  CHECK(shape("mesh = Mesh(batch=2)") == "(= mesh (call Mesh batch=2))");
}

TEST_CASE("parser: statement separators and newlines") {
  CHECK(shapes("x = 1; y = 2;\n\n;z = 3") == std::vector<std::string>{"(= x 1)", "(= y 2)", "(= z 3)"});
  CHECK(shape("x = f(1,\n      2\n      )") == "(= x (call f 1 2))");
  CHECK(shape("x = [\n  1,\n  2\n]") == "(= x (list 1 2))");
  CHECK(shape("total = 1 +\n  2 *\n  3") == "(= total (+ 1 (* 2 3)))");
  CHECK(shape("ok = a and\n  b") == "(= ok (and a b))");
  CHECK(shape("x = 1 \\\n  + 2") == "(= x (+ 1 2))");
  CHECK(shapes("if a { x = 1; y = 2 }\nz = 3") == std::vector<std::string>{"(if a {(= x 1) (= y 2)})", "(= z 3)"});
  CHECK(shapes("x = 1\r\nif x {\r\n  y = 2\r\n}\r\n") == std::vector<std::string>{"(= x 1)", "(if x {(= y 2)})"});
}

TEST_CASE("parser: empty and comment-only files") {
  CHECK(shapes("").empty());
  CHECK(shapes("# just a comment\n\n   # another\n").empty());
  CHECK(shapes("\n\n\n").empty());
}

TEST_CASE("parser: source ranges count code points") {
  Diagnostics diags;
  auto program = parse("x = \"\u00e9\u00e9\" + yy\nif a {\n  b = 1\n}", diags);
  REQUIRE(program->body.size() == 2);
  auto& assign = static_cast<Assign&>(*program->body[0]);
  CHECK(assign.range.begin.line == 1);
  CHECK(assign.range.begin.col == 1);
  CHECK(assign.range.end.col == 13);
  auto& sum = static_cast<Binary&>(*assign.value);
  CHECK(sum.rhs->range.begin.col == 12);
  CHECK(sum.rhs->range.end.col == 13);
  CHECK(assign.range.file->path == "t.model");
  auto& branch = static_cast<If&>(*program->body[1]);
  CHECK(branch.range.begin.line == 2);
  CHECK(branch.range.end.line == 4);
  CHECK(branch.branches[0].body[0]->range.begin.col == 3);
}

// ---- errors ------------------------------------------------------------------------------

TEST_CASE("parser errors: the friendly messages") {
  CHECK(firstError("x = 1\ny = \nz = 2\n") == "2:5: expected an expression");
  CHECK(firstError("f(1, *)") == "1:6: expected an expression");
  CHECK(firstError("x = 1\ny = 2\nif x > 1 {\n  = 3\n}\n") == "4:3: expected '}' to close the block opened at 3:10");
  CHECK(firstError("x = f(1,\n  g(2)\ny = 3\n") == "1:6: unclosed '('");
  CHECK(firstError("fn f() {\n  x = [1, 2\n}\n") == "2:7: unclosed '['");
  CHECK(firstError("x = 1\ns = \"abc\ny = 2\n") == "2:5: unterminated string");
  CHECK(firstError("s = '''never\nclosed\n") == "1:5: unterminated string");
  CHECK(firstError("def f(x) {\n  return x\n}\n") == "1:1: 'def' is not a Weft keyword; functions are declared with 'fn'");
  CHECK(firstError("if x = 1 {\n}\n") == "1:6: '=' in a condition; did you mean '=='?");
  CHECK(firstError("while i = 0 { }") == "1:9: '=' in a condition; did you mean '=='?");
  CHECK(firstError("fn f() {\n  if x {\n    return 1\n  }\n") ==
        "4:4: missing '}' at end of file: the block opened at 1:8 is not closed");
  CHECK(firstError("x = (1 + 2))\n") == "1:12: unexpected ')'");
  CHECK(firstError("if a {\n} else if b {\n}\n") == "2:3: 'else if' is written 'elif'");
  CHECK(firstError("if x:\n    y = 1\n") == "1:5: blocks use braces: `if x { ... }`");
  CHECK(firstError("for i in range(3):\n  pass\n") == "1:18: blocks use braces: `for i in range(3) { ... }`");
  CHECK(firstError("else:\n  pass\n") == "1:5: blocks use braces: `else { ... }`");
}

TEST_CASE("parser errors: more messages") {
  CHECK(firstError("else { }") == "1:1: 'else' without a matching 'if'");
  CHECK(firstError("f(a b)") == "1:5: unexpected 'b'; is a ',' missing before it?");
  CHECK(firstError("x = 1 2") == "1:7: unexpected '2'; expected an operator or the end of the statement");
  CHECK(firstError("for x e { }") == "1:7: expected 'in' before 'e'");
  CHECK(firstError("import 3") == "1:8: expected a name or a string, found '3'");
  CHECK(firstError("if x\n{\n}\n") == "1:5: the '{' that opens a block must be on the same line as its statement");
  CHECK(firstError("x = (1 ]") == "1:8: unexpected ']'; the '(' at 1:5 is closed with ')'");
  CHECK(firstError("if a && b { }") == "1:6: '&&' is written 'and' in Weft");
  CHECK(firstError("x = a ? b : c") == "1:7: unexpected character '?'; a conditional expression is written `a if condition else b`");
  CHECK(firstError("x = 1 $") == "1:7: unexpected character '$'");
  CHECK(firstError("@function\nx = 1") == "2:1: a decorator must be followed by a function (`fn name(...) { ... }`), found 'x'");
}

TEST_CASE("parser errors: checks on the tree") {
  CHECK(firstError("1 = 2") == "1:1: cannot assign to a literal");
  CHECK(firstError("f(x) = 3") == "1:1: cannot assign to a function call");
  CHECK(firstError("a, b + 1 = t") == "1:4: cannot assign to an operator expression");
  CHECK(firstError("f() += 1") == "1:1: '+=' can only update a name, an attribute or an index, not a function call");
  CHECK(firstError("for f(x) in y { }") == "1:5: a loop variable must be a name or a tuple of names, not a function call");
  CHECK(firstError("f(k=1, 2)") == "1:8: positional argument follows keyword argument");
  CHECK(firstError("f(k=1, k=2)") == "1:8: keyword argument 'k' is given twice");
  CHECK(firstError("fn f(a, a) { }") == "1:9: duplicate parameter 'a'");
  CHECK(firstError("fn f(a=1, b) { }") == "1:11: parameter 'b' without a default follows one with a default");
  CHECK(firstError("s = \"a\\qb\"") == "1:7: unknown escape '\\q' in string (use '\\\\' for a backslash)");
  CHECK(firstError("n = 99999999999999999999") ==
        "1:5: integer literal 99999999999999999999 is too large (the largest is 9223372036854775807)");
  CHECK(firstError("x = 1e999") == "1:5: float literal 1e999 is too large");
  CHECK(firstError("fn f(x: i32[-1]) { }") == "1:13: a dimension size cannot be negative; use None for a dimension of any size");
}

TEST_CASE("parser errors: every error of a file is reported, one per statement") {
  auto errors = errorsOf("x = 1 2\ny = 3\nz = (4 5)\nw = \n");
  REQUIRE(errors.size() == 3);
  CHECK(errors[0] == "1:7: unexpected '2'; expected an operator or the end of the statement");
  CHECK(errors[1] == "3:8: unexpected '5'; is a ',' missing before it?");
  CHECK(errors[2] == "4:5: expected an expression");
  // A statement with an error is left out; the others are still there.
  Diagnostics diags;
  auto program = parse("a = 1\nb = = 2\nc = 3\n", diags);
  CHECK(diags.hasErrors());
  REQUIRE(program->body.size() == 2);
  CHECK(show(program->body[1].get()) == "(= c 3)");
}

TEST_CASE("parser errors: the diagnostic shows the line and a caret") {
  Diagnostics diags;
  parse("x = 1\ny = (2 +\n", diags);
  REQUIRE(diags.all().size() == 1);
  CHECK(formatDiagnostic(diags.all()[0]) == "t.model:2:5: error: unclosed '('\n  y = (2 +\n      ^\n");
}

TEST_CASE("parser errors: bad bytes and characters") {
  CHECK(errorsOf(std::string("x = 1\ny = 1 \xff\xfe + 2\n")) == std::vector<std::string>{"2:7: invalid UTF-8 byte 0xff"});
  CHECK(errorsOf(std::string("x = \"caf\xc3\xa9\"\n")).empty());
  CHECK(errorsOf(std::string("x = 1\0\n", 7)) == std::vector<std::string>{"1:6: unexpected NUL character (U+0000)"});
  CHECK(firstError("x = \u00e9t\u00e9") == "1:5: unexpected character '\u00e9' (U+00E9); names use only ASCII letters, digits and '_'");
}

// ---- robustness --------------------------------------------------------------------------

TEST_CASE("parser guards: deep nesting is an error, not a stack overflow") {
  const int n = 100000;
  std::string expected = "1:205: expression nested too deeply (more than 200 levels)";
  CHECK(firstError("x = " + std::string(n, '(') + "1" + std::string(n, ')')) == expected);
  CHECK(firstError("x = " + std::string(n, '[') + "1" + std::string(n, ']')) == expected);
  std::string minus, nots, pows, lambdas;
  for (int i = 0; i < n; ++i) minus += "- ", nots += "not ", pows += "2 ** ", lambdas += "fn() => ";
  CHECK(firstError("x = " + minus + "1") == "1:405: expression nested too deeply (more than 200 levels)");
  CHECK(firstError("x = " + nots + "a") == "1:805: expression nested too deeply (more than 200 levels)");
  CHECK(firstError("x = " + pows + "2").find("expression nested too deeply") != std::string::npos);
  CHECK(firstError("x = " + lambdas + "1").find("expression nested too deeply") != std::string::npos);
  std::string blocks;
  for (int i = 0; i < 1000; ++i) blocks += "if x {\n";
  CHECK(firstError(blocks) == "201:6: blocks nested too deeply (more than 200 levels)");
  // Just under the limit is fine.
  CHECK(errorsOf("x = " + std::string(199, '(') + "1" + std::string(199, ')')).empty());
}

TEST_CASE("parser guards: long flat chains parse; absurd ones are an error") {
  std::string sum = "x = 1";
  for (int i = 1; i < 10000; ++i) sum += " + 1";
  Diagnostics diags;
  auto program = parse(sum, diags);
  CHECK_FALSE(diags.hasErrors());
  REQUIRE(program->body.size() == 1);
  const Expr* e = static_cast<Assign&>(*program->body[0]).value.get();
  int depth = 0;
  while (e->kind == ExprKind::Binary) e = static_cast<const Binary*>(e)->lhs.get(), ++depth;
  CHECK(depth == 9999);

  std::string chain = "x = a";
  for (int i = 0; i < 30000; ++i) chain += ".b";
  CHECK(firstError(chain).find("expression too long (more than 20000 operations in a row)") != std::string::npos);
}

TEST_CASE("parser guards: size limits") {
  CHECK(firstError("x = \"" + std::string((1 << 20) + 10, 'a') + "\"") == "1:1: line too long (1048592 bytes; the limit is 1048576)");
  ParseLimits saved = parseLimits();
  parseLimits().maxSourceBytes = 100;
  CHECK(firstError(std::string(200, '#')) == "1:1: file too large (200 bytes; the limit is 100)");
  parseLimits() = saved;
}

TEST_CASE("parser guards: junk never crashes, errors are capped") {
  std::string junk;
  uint32_t seed = 12345;
  for (int i = 0; i < 100000; ++i) {
    seed = seed * 1103515245 + 12345;
    junk.push_back(static_cast<char>(seed >> 16));
  }
  auto errors = errorsOf(junk);
  CHECK(!errors.empty());
  CHECK(errors.size() <= 101);
  const char* pieces[] = {"(", ")", "[", "]", "{", "}", "if", "else", "fn", "x", "1", "+", "-", ",", ":", "\n", "\"s\"",
                          "=", "=>", "not", "**", ".", ";", "for", "in", "@", "elif", "module", "mesh", "on", "def"};
  std::string tokens;
  for (int i = 0; i < 50000; ++i) {
    seed = seed * 1103515245 + 12345;
    tokens += std::string(pieces[(seed >> 16) % (sizeof pieces / sizeof *pieces)]) + " ";
  }
  CHECK(!errorsOf(tokens).empty());
}

// A typical program of about `lines` lines: assignments, calls, functions, if and for blocks.
static std::string generatedProgram(int lines) {
  std::string out;
  int n = 0;
  for (int i = 0; n < lines; ++i) {
    std::string k = std::to_string(i);
    switch (i % 6) {
      case 0: out += "x" + k + " = a" + k + " * 2.0 + b[" + k + "] - c.d(" + k + ", axis=1)\n", n += 1; break;
      case 1: out += "print(x" + k + ", \"value\", [1, 2, 3], {\"k\": " + k + "})\n", n += 1; break;
      case 2:
        out += "fn f" + k + "(a: f32[None, 784], b=1) -> f32[] {\n  y = relu(a @ w" + k +
               " + b)\n  return mean(y ** 2, axis=-1)\n}\n";
        n += 4;
        break;
      case 3: out += "if x" + k + " > 0 and y < " + k + " {\n  z = x if c else -x\n} else {\n  z = 0\n}\n", n += 5; break;
      case 4: out += "for j, (u, v) in enumerate(data[" + k + ":, ::2]) {\n  total += u * v\n}\n", n += 3; break;
      default: out += "model" + k + " = Sequential([Dense(64, activation=relu), Dense(10)], name=\"m" + k + "\")\n", n += 1;
    }
  }
  return out;
}

TEST_CASE("parser: a generated 10,000-line program parses without errors") {
  Diagnostics diags;
  auto program = parse(generatedProgram(10000), diags);
  CHECK_FALSE(diags.hasErrors());
  CHECK(program->body.size() > 3000);
}

// ---- the REPL ------------------------------------------------------------------------------

TEST_CASE("inputIsIncomplete") {
  CHECK_FALSE(inputIsIncomplete("x = 1"));
  CHECK_FALSE(inputIsIncomplete(""));
  CHECK_FALSE(inputIsIncomplete("print(\"(\")  # (["));
  CHECK(inputIsIncomplete("f(1,"));
  CHECK(inputIsIncomplete("x = [1, 2"));
  CHECK(inputIsIncomplete("fn f() {\n  return 1"));
  CHECK_FALSE(inputIsIncomplete("fn f() {\n  return 1\n}"));
  CHECK(inputIsIncomplete("x = 1 +"));
  CHECK(inputIsIncomplete("x = a and"));
  CHECK(inputIsIncomplete("x = 1,"));
  CHECK(inputIsIncomplete("x = 1 \\"));
  CHECK(inputIsIncomplete("s = \"\"\"abc\n"));
  CHECK_FALSE(inputIsIncomplete("s = \"\"\"abc\"\"\""));
  CHECK(inputIsIncomplete("s = \"abc\\\n"));
  CHECK_FALSE(inputIsIncomplete("s = \"abc"));  // an error now: more lines would not help
  CHECK_FALSE(inputIsIncomplete("x = (1))"));
  CHECK(inputIsIncomplete("@function"));
  CHECK_FALSE(inputIsIncomplete("x = a[-1]"));
  CHECK_FALSE(inputIsIncomplete("x = 1e-3"));
  CHECK_FALSE(inputIsIncomplete("x = 1  # a comment with ( and +"));
  CHECK(inputIsIncomplete("x = (1  # a comment\n"));
  CHECK(inputIsIncomplete("@function\n# a comment"));
}

// ---- the hand-written lexer --------------------------------------------------------------

TEST_CASE("lexer: agrees with the lexer ANTLR generates from Weft.g4") {
  const char* samples[] = {
      "x = 1 + 2.5 * .5e-3 - 2. ** 3 // 4 % 5 @ w\n",
      "if a <= b >= c == d != e < f > g { x += 1; y -= 2 } elif h { } else { }\n",
      "fn f(a: f32[None, 784] = 1e3) -> f32[] { return a } # comment\r\n",
      "s = \"esc \\\" \\n\" + 'it\\'s' + \"\"\"tri\n\"ple\"\"\" + '''x'''\n",
      "bad = \"unterminated\nnext = 'also\n",
      "t = \"\"\"never closed\n",
      "a[..., ::2, 1:] ; b.c => d -> e **= f //= g %= h @= i *= j /= k\n",
      "x = 1 \\\n  + 2 \\ y $ ? ! & | \\\t\n\t\f",
      "mesh grid(batch=2)\nlayout_map s on grid { \"k\": [_, model] }\nNone none True with as import from\n",
      "caf\u00e9 = \u201cquoted\u201d\n1.e5 1e 1e+ 0x10 007 1..2\n",
      "f\"a {x:.2f} {{b}}\" + F'c' + f + f\"\"\"t\"\"\" + f\"open\n fx'y'\n",
      "",
  };
  for (const char* text : samples) CHECK_MESSAGE(syntax::compareWithAntlrLexer(text) == "", text);
}

TEST_CASE("f-strings: text, fields and specs; stray braces are errors") {
  CHECK(errorsOf("x = f\"a {b:>4} {{c}} {d[0]:.2f} {e['k']}\"\n").empty());
  CHECK(errorsOf("x = f\"a } b\"\n") == std::vector<std::string>{"1:9: unexpected character '}'"});
  CHECK(errorsOf("x = f\"a {b\"\n") == std::vector<std::string>{"1:9: unexpected character '{'"});
  CHECK(errorsOf("x = f\"a {} b\"\n") == std::vector<std::string>{"1:10: expected an expression"});
  CHECK(errorsOf("x = f\"{a for a in b}\"\n") == std::vector<std::string>{"1:10: expected a format spec or '}', found 'for'"});
}

TEST_CASE("list comprehensions") {
  CHECK(errorsOf("x = [a * b for a in xs if a > 0 if a < 9 for b in range(a)]\ny = [c for c in d if e else f]\n").empty());
  CHECK(errorsOf("x = [a for 1 in xs]\n").size() == 1);
}

TEST_CASE("parser errors: parsing goes on after an unclosed bracket") {
  auto errors = errorsOf("x = f(1, 2\ny = 3\nz = 4 5\nfn g() {\n  a = [1, 2\n  return a\n}\nw = = 1\n");
  CHECK(errors == std::vector<std::string>{"1:6: unclosed '('",
                                           "3:7: unexpected '5'; expected an operator or the end of the statement",
                                           "5:7: unclosed '['", "8:5: expected an expression"});
  errors = errorsOf("fn f() {\n  if x {\n    y = 1\n\nz = 2 3\n");
  CHECK(errors == std::vector<std::string>{"5:7: unexpected '3'; expected an operator or the end of the statement",
                                           "5:8: missing '}' at end of file: the block opened at 2:8 is not closed",
                                           "5:8: missing '}' at end of file: the block opened at 1:8 is not closed"});
}
