#include "expr.h"

namespace weft::ast {

const char* binaryOpText(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::FloorDiv: return "//";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Pow: return "**";
    case BinaryOp::MatMul: return "@";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::BitOr: return "|";
  }
  return "?";
}

const char* compareOpText(CompareOp op) {
  switch (op) {
    case CompareOp::Eq: return "==";
    case CompareOp::Ne: return "!=";
    case CompareOp::Lt: return "<";
    case CompareOp::Le: return "<=";
    case CompareOp::Gt: return ">";
    case CompareOp::Ge: return ">=";
    case CompareOp::In: return "in";
    case CompareOp::NotIn: return "not in";
    case CompareOp::Is: return "is";
    case CompareOp::IsNot: return "is not";
  }
  return "?";
}

}  // namespace weft::ast
