//===- EmitKernel.cpp - .tile kernels and attributes ----------------------===//

#include "Emitter.h"
#include "Parser.h"

#include "tile/Frontend/Language.h"
#include "tile/Frontend/Parser.h"

#include "tile/Dialect/Tile/IR/SizeExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;
using llvm::SMLoc;
using llvm::StringRef;

Emitter::Emitter(Diagnoser &diag, ModuleOp module)
    : diag(diag), module(module), builder(module.getContext()) {}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

const Symbol *Emitter::lookup(StringRef name) const {
  for (const llvm::StringMap<Symbol> &scope : llvm::reverse(scopes)) {
    auto it = scope.find(name);
    if (it != scope.end())
      return &it->second;
  }
  return nullptr;
}

LogicalResult Emitter::define(StringRef name, Symbol symbol) {
  if (isReservedName(name))
    return error(symbol.loc)
           << "'" << name << "' is the name of a builtin function or type";
  // Shadowing is a redefinition: one name means one thing in a kernel.
  if (const Symbol *previous = lookup(name)) {
    InFlightDiagnostic diag = error(symbol.loc)
                              << "redefinition of '" << name << "'";
    diag.attachNote(getLoc(previous->loc)) << "previous definition is here";
    return failure();
  }
  scopes.back().try_emplace(name, symbol);
  return success();
}

FailureOr<Symbol> Emitter::resolve(StringRef name, SMLoc loc) {
  if (const Symbol *symbol = lookup(name))
    return *symbol;
  if (isReservedName(name))
    return error(loc) << "'" << name
                      << "' is a builtin function or type, not a value";
  return error(loc) << "undefined name '" << name << "'"
                    << suggestVisibleName(name);
}

//===----------------------------------------------------------------------===//
// Kernels and attributes
//===----------------------------------------------------------------------===//

LogicalResult Emitter::checkAttributeNames(const Kernel &kernel) {
  llvm::StringMap<SMLoc> seen;
  for (const Attribute &attr : kernel.attributes) {
    if (!isLanguageName(LanguageName::Kind::Attribute, attr.name))
      return error(attr.loc) << "unknown attribute '@" << attr.name
                             << "'; expected @launch, @registers or @pipeline"
                             << suggestAttribute(attr.name);
    auto [it, inserted] = seen.try_emplace(attr.name, attr.loc);
    if (!inserted) {
      InFlightDiagnostic diag = error(attr.loc)
                                << "duplicate '@" << attr.name
                                << "' on kernel '" << kernel.name << "'";
      diag.attachNote(getLoc(it->second)) << "first given here";
      return failure();
    }
  }
  return success();
}

const Literal *Emitter::lookupConst(StringRef name) const {
  const Symbol *symbol = lookup(name);
  if (!symbol || symbol->kind != Symbol::Kind::Const)
    return nullptr;
  return &symbol->constant;
}

FailureOr<Literal> Emitter::evaluateConstant(const Expr &expr, StringRef what) {
  auto notConstant = [&](const Expr &at) {
    return error(at.getLoc())
           << "not a compile-time constant: " << what
           << " is made of integers, numbers, consts, unary '-' and '~', "
              "+ - * / %, & | ^ << >> and cdiv, min, max";
  };
  switch (expr.getKind()) {
  case Expr::Kind::Int: {
    Literal value;
    value.intValue = cast<IntExpr>(expr).value;
    return value;
  }
  case Expr::Kind::Float: {
    Literal value;
    value.kind = Literal::Kind::Float;
    value.floatValue = cast<FloatExpr>(expr).value;
    return value;
  }
  case Expr::Kind::Name: {
    const auto &name = cast<NameExpr>(expr);
    if (const Literal *constant = lookupConst(name.name))
      return *constant;
    if (!lookup(name.name))
      return error(expr.getLoc()) << "undefined name '" << name.name << "'"
                                  << suggestVisibleName(name.name);
    return notConstant(expr);
  }
  case Expr::Kind::Value: {
    // Another front end's value (KernelBuilder): a literal is a constant.
    const Operand &value = evaluated[cast<ValueExpr>(expr).index];
    if (!value.isLiteral())
      return notConstant(expr);
    return *value.literal;
  }
  case Expr::Kind::Unary: {
    const auto &unary = cast<UnaryExpr>(expr);
    if (unary.op == UnaryOp::Not)
      return notConstant(expr);
    FailureOr<Operand> operand = emitUnary(unary);
    if (failed(operand))
      return failure();
    if (!operand->isLiteral())
      return notConstant(expr);
    return *operand->literal;
  }
  case Expr::Kind::Binary: {
    const auto &binary = cast<BinaryExpr>(expr);
    FailureOr<Literal> lhs = evaluateConstant(*binary.lhs, what);
    if (failed(lhs))
      return failure();
    FailureOr<Literal> rhs = evaluateConstant(*binary.rhs, what);
    if (failed(rhs))
      return failure();
    if (isBitOperator(binary.op)) {
      FailureOr<Operand> folded =
          foldBitOperator(binary.op, *lhs, *rhs, binary.getLoc());
      if (failed(folded))
        return failure();
      return *folded->literal;
    }
    if (binary.op > BinaryOp::Rem)
      return notConstant(expr);
    FailureOr<Operand> folded =
        foldBinary(binary.op, *lhs, *rhs, binary.getLoc());
    if (failed(folded))
      return failure();
    return *folded->literal;
  }
  case Expr::Kind::Call: {
    const auto &call = cast<CallExpr>(expr);
    bool known =
        call.callee == "cdiv" || call.callee == "min" || call.callee == "max";
    if (!known || call.args.size() != 2 || !call.named.empty())
      return notConstant(expr);
    FailureOr<Literal> a = evaluateConstant(*call.args[0], what);
    if (failed(a))
      return failure();
    FailureOr<Literal> b = evaluateConstant(*call.args[1], what);
    if (failed(b))
      return failure();
    bool isFloat =
        a->kind == Literal::Kind::Float || b->kind == Literal::Kind::Float;
    Literal result;
    if (call.callee == "cdiv") {
      if (isFloat)
        return error(expr.getLoc()) << "'cdiv' needs integer operands";
      if (b->intValue == 0)
        return error(expr.getLoc())
               << "division by zero in a constant expression";
      FailureOr<Operand> quotient =
          foldBinary(BinaryOp::Div, *a, *b, expr.getLoc());
      if (failed(quotient))
        return failure();
      result = *quotient->literal;
      bool inexact = a->intValue % b->intValue != 0;
      if (inexact && ((a->intValue < 0) == (b->intValue < 0)))
        ++result.intValue;
      return result;
    }
    bool takeA = call.callee == "min" ? a->asDouble() <= b->asDouble()
                                      : a->asDouble() >= b->asDouble();
    result = takeA ? *a : *b;
    if (isFloat && result.kind == Literal::Kind::Int) {
      result.kind = Literal::Kind::Float;
      result.floatValue = result.asDouble();
    }
    return result;
  }
  default:
    return notConstant(expr);
  }
}

LogicalResult Emitter::emitConst(const ConstStmt &constant) {
  FailureOr<Literal> value = evaluateConstant(*constant.value);
  if (failed(value))
    return failure();
  if (value->kind == Literal::Kind::Bool)
    return error(constant.value->getLoc())
           << "a const is an integer or a number, not a boolean";
  Symbol symbol{Symbol::Kind::Const, constant.nameLoc, Value(), *value};
  return define(constant.name, symbol);
}

LogicalResult Emitter::emitFileConst(const ConstStmt &constant) {
  scopes.clear();
  scopes.emplace_back(fileConsts);
  if (failed(emitConst(constant)))
    return failure();
  fileConsts = std::move(scopes.back());
  scopes.clear();
  return success();
}

FailureOr<AffineExpr> Emitter::emitGridExpr(const Expr &expr,
                                            ArrayRef<StringAttr> symbols) {
  FailureOr<AffineExpr> result = emitGridTerm(expr, symbols);
  // AffineExpr folds constants: `65536 * 65536` is one, and so is the
  // factor of `cdiv(N, 1) * 65536 * 65536` (`s0 * 4294967296`), checked
  // here, at the expression, rather than by the kernel's verifier at its
  // name.
  if (failed(result))
    return failure();
  std::optional<int64_t> tooLarge;
  result->walk([&](AffineExpr part) {
    if (auto constant = dyn_cast<AffineConstantExpr>(part);
        constant && !tooLarge &&
        (constant.getValue() > INT32_MAX || constant.getValue() < -INT32_MAX))
      tooLarge = constant.getValue();
  });
  if (!tooLarge)
    return result;
  if (isa<AffineConstantExpr>(*result))
    return error(expr.getLoc())
           << "this grid expression is the constant " << *tooLarge
           << ", more than 2^31 - 1 in magnitude";
  return error(expr.getLoc())
         << "this grid expression folds to a constant " << *tooLarge
         << ", more than 2^31 - 1 in magnitude";
}

FailureOr<AffineExpr> Emitter::emitGridTerm(const Expr &expr,
                                            ArrayRef<StringAttr> symbols) {
  MLIRContext *ctx = builder.getContext();
  auto recurse = [&](const ExprPtr &child) {
    return emitGridExpr(*child, symbols);
  };
  auto constantDivisor = [&](AffineExpr divisor, SMLoc loc) {
    auto constant = dyn_cast<AffineConstantExpr>(divisor);
    if (constant && constant.getValue() > 0)
      return success();
    LogicalResult result = error(loc) << "a divisor in a grid expression "
                                         "must be a positive constant";
    return result;
  };
  auto constant = [&](int64_t value) -> FailureOr<AffineExpr> {
    // Keep the folding of constants by AffineExpr far from overflow.
    if (value > INT32_MAX || value < -INT32_MAX)
      return error(expr.getLoc())
             << "grid constant " << value << " is too large";
    return getAffineConstantExpr(value, ctx);
  };
  if (auto *integer = dyn_cast<IntExpr>(&expr))
    return constant(integer->value);
  if (auto *name = dyn_cast<NameExpr>(&expr); name && lookupConst(name->name)) {
    const Literal &value = *lookupConst(name->name);
    if (value.kind != Literal::Kind::Int)
      return error(expr.getLoc()) << "const '" << name->name
                                  << "' is a number; a grid is made of "
                                     "integers";
    return constant(value.intValue);
  }
  if (auto *name = dyn_cast<NameExpr>(&expr)) {
    for (auto [position, symbol] : llvm::enumerate(symbols))
      if (symbol.getValue() == name->name)
        return getAffineSymbolExpr(position, ctx);
    InFlightDiagnostic diag = error(expr.getLoc())
                              << "'" << name->name
                              << "' is not a symbolic dimension of the "
                                 "parameters or an integer scalar "
                                 "parameter; a grid can use ";
    if (symbols.empty())
      diag << "only constants here (the parameters have no symbols and no "
              "integer scalars)";
    else
      llvm::interleaveComma(
          symbols, diag, [&](StringAttr symbol) { diag << symbol.getValue(); });
    return failure();
  }
  if (auto *unary = dyn_cast<UnaryExpr>(&expr)) {
    if (unary->op != UnaryOp::Neg)
      return error(expr.getLoc())
             << (unary->op == UnaryOp::Not ? "'not'" : "'~'")
             << " in a grid expression";
    FailureOr<AffineExpr> operand = recurse(unary->operand);
    if (failed(operand))
      return failure();
    return -*operand;
  }
  if (auto *call = dyn_cast<CallExpr>(&expr)) {
    if (call->callee != "cdiv" || call->args.size() != 2)
      return error(expr.getLoc()) << "a grid expression can only call "
                                     "cdiv(a, b)";
    FailureOr<AffineExpr> lhs = recurse(call->args[0]);
    if (failed(lhs))
      return failure();
    FailureOr<AffineExpr> rhs = recurse(call->args[1]);
    if (failed(rhs) || failed(constantDivisor(*rhs, call->args[1]->getLoc())))
      return failure();
    return lhs->ceilDiv(*rhs);
  }
  auto *binary = dyn_cast<BinaryExpr>(&expr);
  if (!binary)
    return error(expr.getLoc())
           << "a grid expression is made of integers, symbolic dimensions, "
              "+, -, *, /, % and cdiv(a, b)";
  FailureOr<AffineExpr> lhs = recurse(binary->lhs);
  if (failed(lhs))
    return failure();
  FailureOr<AffineExpr> rhs = recurse(binary->rhs);
  if (failed(rhs))
    return failure();
  switch (binary->op) {
  case BinaryOp::Add:
    return *lhs + *rhs;
  case BinaryOp::Sub:
    return *lhs - *rhs;
  case BinaryOp::Mul:
    if (!isa<AffineConstantExpr>(*lhs) && !isa<AffineConstantExpr>(*rhs))
      return error(expr.getLoc()) << "a grid expression must be affine: one "
                                     "factor of '*' must be a constant";
    return *lhs * *rhs;
  case BinaryOp::Div:
  case BinaryOp::Rem:
    if (failed(constantDivisor(*rhs, binary->rhs->getLoc())))
      return failure();
    return binary->op == BinaryOp::Div ? lhs->floorDiv(*rhs) : *lhs % *rhs;
  default:
    return error(expr.getLoc())
           << "'" << spell(binary->op) << "' in a grid expression";
  }
}

FailureOr<Emitter::LaunchConfig>
Emitter::emitLaunch(const Attribute &attr, ArrayRef<StringAttr> symbols,
                    ArrayRef<StringAttr> scalars) {
  LaunchConfig config;
  if (attr.args.empty() || !attr.args[0].key.empty())
    return error(attr.args.empty() ? attr.loc : attr.args[0].loc)
           << "@launch needs the threads per CTA as its first argument: "
              "@launch(256)";
  const Expr &threads = *attr.args[0].value;
  FailureOr<Literal> count =
      evaluateConstant(threads, "the threads of @launch");
  if (failed(count))
    return failure();
  if (count->kind != Literal::Kind::Int)
    return error(threads.getLoc())
           << "@launch needs the threads per CTA as an integer: @launch(256)";
  config.threads = count->intValue;
  if (config.threads < kLanes || config.threads > 1024 ||
      config.threads % kLanes != 0)
    return error(threads.getLoc())
           << "@launch threads must be a multiple of " << kLanes << " from "
           << kLanes << " to 1024, got " << config.threads;
  for (const AttrArg &arg : llvm::drop_begin(attr.args)) {
    if (arg.key != "grid")
      return error(arg.loc) << "@launch takes the threads and an optional "
                               "grid = [x, y, z]";
    if (config.grid)
      return error(arg.loc) << "grid given twice";
    SmallVector<const Expr *> dims;
    if (arg.isList)
      for (const ExprPtr &dim : arg.list)
        dims.push_back(dim.get());
    else
      dims.push_back(arg.value.get());
    if (dims.empty() || dims.size() > 3)
      return error(arg.loc)
             << "a grid has 1 to 3 dimensions, got " << dims.size();
    // The map's symbols are the kernel's, then its integer scalars when
    // the grid names one (a split count given at launch).
    SmallVector<StringAttr> names(symbols);
    llvm::append_range(names, scalars);
    SmallVector<AffineExpr> results;
    bool namesScalar = false;
    for (const Expr *dim : dims) {
      FailureOr<AffineExpr> result = emitGridExpr(*dim, names);
      if (failed(result))
        return failure();
      result->walk([&](AffineExpr part) {
        if (auto symbol = dyn_cast<AffineSymbolExpr>(part))
          namesScalar |= symbol.getPosition() >= symbols.size();
      });
      results.push_back(*result);
    }
    config.grid = AffineMap::get(0, namesScalar ? names.size() : symbols.size(),
                                 results, builder.getContext());
  }
  return config;
}

LogicalResult Emitter::emitRegisters(const Attribute &attr, KernelOp kernel) {
  SmallVector<StringRef> names;
  if (attr.args.empty())
    return error(attr.loc) << "@registers needs the names of tile vars";
  for (const AttrArg &arg : attr.args) {
    auto *name =
        arg.key.empty() ? dyn_cast<NameExpr>(arg.value.get()) : nullptr;
    if (!name)
      return error(arg.loc) << "@registers takes names of tile vars";
    auto it = declaredVars.find(name->name);
    if (it == declaredVars.end())
      return error(arg.loc)
             << "@registers names '" << name->name
             << "', which is not a var of kernel '" << kernel.getSymName()
             << "': the name refers to nothing"
             << suggestDeclared(name->name, /*loopIndices=*/false);
    // A name with no `var t: tile<..>[..]` refers to nothing.
    if (!isa<RankedTensorType>(it->second))
      return error(arg.loc) << "@registers needs a tile var; '" << name->name
                            << "' is a scalar " << describe(it->second)
                            << ": the name refers to nothing";
    if (llvm::is_contained(names, name->name))
      return error(arg.loc)
             << "'" << name->name << "' appears twice in @registers";
    names.push_back(name->name);
  }
  kernel.setRegistersAttr(builder.getStrArrayAttr(names));
  return success();
}

LogicalResult Emitter::emitPipeline(const Attribute &attr, KernelOp kernel) {
  auto isElement = [&](StringRef name) {
    return declaredVars.contains(name) || declaredLoopIndices.contains(name);
  };
  auto unknown = [&](const Expr &expr, StringRef name) {
    return error(expr.getLoc())
           << "@pipeline names '" << name << "', which is neither a var nor "
           << "a loop index of kernel '" << kernel.getSymName() << "'"
           << suggestDeclared(name, /*loopIndices=*/true);
  };
  // A value of the attribute: a number, a boolean, or a name of the kernel.
  auto value = [&](const Expr &expr) -> FailureOr<mlir::Attribute> {
    if (auto *name = dyn_cast<NameExpr>(&expr);
        name && lookupConst(name->name)) {
      const Literal &constant = *lookupConst(name->name);
      if (constant.kind == Literal::Kind::Int)
        return mlir::Attribute(builder.getI64IntegerAttr(constant.intValue));
      return mlir::Attribute(builder.getF64FloatAttr(constant.floatValue));
    }
    // A number, negated or not (`stages = -1` is a wrong number, not a
    // wrong kind of argument).
    const Expr *literal = &expr;
    bool negated = false;
    if (auto *unary = dyn_cast<UnaryExpr>(&expr);
        unary && unary->op == UnaryOp::Neg &&
        isa<IntExpr, FloatExpr>(unary->operand.get())) {
      literal = unary->operand.get();
      negated = true;
    }
    if (auto *integer = dyn_cast<IntExpr>(literal))
      return mlir::Attribute(builder.getI64IntegerAttr(
          negated ? -integer->value : integer->value));
    if (auto *number = dyn_cast<FloatExpr>(literal))
      return mlir::Attribute(
          builder.getF64FloatAttr(negated ? -number->value : number->value));
    if (auto *boolean = dyn_cast<BoolExpr>(&expr))
      return mlir::Attribute(builder.getBoolAttr(boolean->value));
    if (auto *name = dyn_cast<NameExpr>(&expr)) {
      if (!isElement(name->name))
        return unknown(expr, name->name);
      return mlir::Attribute(builder.getStringAttr(name->name));
    }
    return error(expr.getLoc()) << "@pipeline arguments are numbers, "
                                   "booleans and names";
  };
  SmallVector<mlir::Attribute> names;
  NamedAttrList entries;
  for (const AttrArg &arg : attr.args) {
    if (arg.key.empty()) {
      auto *name = dyn_cast<NameExpr>(arg.value.get());
      if (!name)
        return error(arg.loc) << "a positional @pipeline argument is the "
                                 "name of a var or loop index";
      if (!isElement(name->name))
        return unknown(*arg.value, name->name);
      if (llvm::is_contained(names, builder.getStringAttr(name->name)))
        return error(arg.loc)
               << "'" << name->name << "' appears twice in @pipeline";
      names.push_back(builder.getStringAttr(name->name));
      continue;
    }
    if (arg.key == "names" || entries.get(arg.key))
      return error(arg.loc)
             << "@pipeline argument '" << arg.key << "' given twice";
    mlir::Attribute entry;
    if (arg.isList) {
      SmallVector<mlir::Attribute> list;
      for (const ExprPtr &element : arg.list) {
        FailureOr<mlir::Attribute> item = value(*element);
        if (failed(item))
          return failure();
        list.push_back(*item);
      }
      entry = builder.getArrayAttr(list);
    } else {
      FailureOr<mlir::Attribute> item = value(*arg.value);
      if (failed(item))
        return failure();
      entry = *item;
    }
    if (failed(verifyPipelineOption(arg.key, entry,
                                    [&] { return error(arg.loc); })))
      return failure();
    entries.set(arg.key, entry);
  }
  if (!names.empty())
    entries.set("names", builder.getArrayAttr(names));
  kernel.setPipelineAttr(entries.getDictionary(builder.getContext()));
  return success();
}

LogicalResult Emitter::emitKernel(const Kernel &source) {
  FailureOr<KernelOp> kernel = beginKernel(source);
  if (failed(kernel))
    return failure();
  // beginKernel defined the leading consts.
  for (const StmtPtr &stmt : llvm::drop_begin(source.body, leadingConsts))
    if (failed(emitStmt(*stmt)))
      return failure();
  return endKernel(source, *kernel);
}

FailureOr<KernelOp> Emitter::beginKernel(const Kernel &source) {
  auto [previous, inserted] = kernelNames.try_emplace(source.name, source.loc);
  if (!inserted) {
    InFlightDiagnostic diag = error(source.loc) << "redefinition of kernel '"
                                                << source.name << "'";
    diag.attachNote(getLoc(previous->second)) << "previous definition is here";
    return failure();
  }
  if (failed(checkAttributeNames(source)))
    return failure();
  scopes.clear();
  scopes.emplace_back(fileConsts);
  scopes.emplace_back();
  declaredVars.clear();
  declaredLoopIndices.clear();
  builder.setInsertionPointToEnd(module.getBody());

  // The leading consts of the body, which the attributes and the
  // parameter types may use too.
  leadingConsts = 0;
  for (const StmtPtr &stmt : source.body) {
    auto *constant = dyn_cast<ConstStmt>(stmt.get());
    if (!constant)
      break;
    if (failed(emitConst(*constant)))
      return failure();
    ++leadingConsts;
  }

  SmallVector<Type> paramTypes;
  for (const Param &param : source.params) {
    FailureOr<Type> type = emitParamType(param);
    if (failed(type))
      return failure();
    paramTypes.push_back(*type);
  }
  // The symbols in order of first appearance, as KernelOp::getSymbols()
  // orders them, each with the first dimension that is the symbol alone,
  // which binds it (an expression of symbols binds none).
  SmallVector<StringAttr> symbols;
  SmallVector<SMLoc> symbolLocs;
  SmallVector<std::optional<std::pair<unsigned, unsigned>>> symbolDims;
  for (auto [index, param, type] : llvm::enumerate(source.params, paramTypes)) {
    auto tensor = dyn_cast<GlobalTensorType>(type);
    if (!tensor)
      continue;
    for (auto [dimIndex, dim] : llvm::enumerate(param.type.dims)) {
      StringAttr size = tensor.getSymbolOfDim(dimIndex);
      if (!size)
        continue;
      SmallVector<StringAttr> names;
      (void)getSizeExpr(tensor, dimIndex, names);
      for (StringAttr name : names) {
        auto *known = llvm::find(symbols, name);
        if (known == symbols.end()) {
          symbols.push_back(name);
          symbolLocs.push_back(dim.loc);
          symbolDims.emplace_back();
          known = std::prev(symbols.end());
        }
        auto &binding = symbolDims[known - symbols.begin()];
        if (!binding && size == name)
          binding = std::make_pair(static_cast<unsigned>(index),
                                   static_cast<unsigned>(dimIndex));
      }
    }
  }
  for (auto [symbol, loc, binding] : llvm::zip(symbols, symbolLocs, symbolDims))
    if (!binding)
      return error(loc) << "symbol '" << symbol.getValue()
                        << "' is only in dimension expressions, which cannot "
                           "bind it: it must also be a dimension of its own "
                           "(a launch binds each symbol from such a "
                           "dimension and checks the expressions)";
  // The integer scalar parameters, which a grid may name too.
  SmallVector<StringAttr> integerScalars;
  for (auto [param, type] : llvm::zip(source.params, paramTypes))
    if (type.isInteger(32) || type.isIndex())
      integerScalars.push_back(builder.getStringAttr(param.name));

  const Attribute *launch = nullptr;
  for (const Attribute &attr : source.attributes)
    if (attr.name == "launch")
      launch = &attr;
  if (!launch)
    return error(source.loc)
           << "kernel '" << source.name << "' needs @launch(threads) before it";
  FailureOr<LaunchConfig> config = emitLaunch(*launch, symbols, integerScalars);
  if (failed(config))
    return failure();

  auto kernel = KernelOp::create(builder, getLoc(source.loc), source.name,
                                 builder.getFunctionType(paramTypes, {}),
                                 config->threads);
  if (config->grid)
    kernel.setGridAttr(AffineMapAttr::get(*config->grid));
  mlir::Block &entry = kernel.getBodyBlock();
  builder.setInsertionPointToEnd(&entry);

  for (auto [param, arg] : llvm::zip(source.params, entry.getArguments())) {
    arg.setLoc(getLoc(param.loc));
    // Manifests and run reports name parameters as the source does.
    kernel.setArgAttr(arg.getArgNumber(), kParamNameAttr,
                      builder.getStringAttr(param.name));
    Symbol::Kind kind = isa<GlobalTensorType>(arg.getType())
                            ? Symbol::Kind::Param
                            : Symbol::Kind::Scalar;
    if (failed(define(param.name, {kind, param.loc, arg, {}})))
      return failure();
  }
  for (auto [symbol, binding, loc] :
       llvm::zip(symbols, symbolDims, symbolLocs)) {
    auto position = *binding;
    Value dim =
        DimOp::create(builder, getLoc(loc), entry.getArgument(position.first),
                      static_cast<uint64_t>(position.second));
    if (failed(define(symbol.getValue(), {Symbol::Kind::Dim, loc, dim, {}})))
      return failure();
  }
  return kernel;
}

LogicalResult Emitter::endKernel(const Kernel &source, KernelOp kernel) {
  ReturnOp::create(builder, getLoc(source.loc));

  for (const Attribute &attr : source.attributes) {
    if (attr.name == "registers" && failed(emitRegisters(attr, kernel)))
      return failure();
    if (attr.name == "pipeline" && failed(emitPipeline(attr, kernel)))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> mlir::tile::parseTileSource(llvm::SourceMgr &sourceMgr,
                                                  MLIRContext *context) {
  context->loadDialect<TileDialect, arith::ArithDialect, math::MathDialect,
                       scf::SCFDialect>();
  unsigned bufferID = sourceMgr.getMainFileID();
  Diagnoser diag(sourceMgr, bufferID, context);
  StringRef buffer = sourceMgr.getMemoryBuffer(bufferID)->getBuffer();
  std::optional<Module> ast = parseModule(diag, buffer);
  if (!ast)
    return nullptr;

  OwningOpRef<ModuleOp> module =
      ModuleOp::create(diag.getLoc(SMLoc::getFromPointer(buffer.data())));
  Emitter emitter(diag, *module);
  // Each kernel is checked even after an error in another: one run reports
  // the first error of every kernel. A file-level const that fails stops
  // the run: every later kernel might use it.
  bool ok = true;
  size_t constsDone = 0;
  for (const Kernel &kernel : ast->kernels) {
    for (; constsDone < kernel.fileConstsBefore; ++constsDone)
      if (failed(emitter.emitFileConst(*ast->consts[constsDone])))
        return nullptr;
    ok &= succeeded(emitter.emitKernel(kernel));
  }
  for (; constsDone < ast->consts.size(); ++constsDone)
    if (failed(emitter.emitFileConst(*ast->consts[constsDone])))
      return nullptr;
  if (!ok)
    return nullptr;
  // A verifier error points into the .tile source; the generic form of the
  // op it is about would only bury it.
  bool printOp = context->shouldPrintOpOnDiagnostic();
  context->printOpOnDiagnostic(false);
  LogicalResult verified = verify(*module);
  context->printOpOnDiagnostic(printOp);
  if (failed(verified))
    return nullptr;
  return module;
}
