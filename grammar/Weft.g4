// The Weft grammar (SPEC §1, §3-§5, §7).
//
// The parser never sees raw newlines: token_source.cpp drops them inside ( ) and [ ], after a
// trailing operator or comma, and inside a dict or set literal's braces where an entry goes on
// (after its ':', before a line starting with ':', ',', `for`, `if` or `else`), collapses runs
// into one NEWLINE, turns ';' into NEWLINE, and keeps
// one before every '}' and at the end of the file where a statement ends there. So a simple
// statement always ends with exactly one NEWLINE, and a block or dict literal is
// `{ item NEWLINE item NEWLINE }`.
//
// The lexer rules at the end are the lexical specification; lexing.cpp implements them by hand
// (ANTLR's C++ lexer is several times slower) and a unit test checks that both agree.
//
// The rules are kept LL-friendly (common prefixes factored out) so SLL prediction never needs
// full context on valid input; see parser.cpp for the two-stage SLL/LL strategy.
grammar Weft;

// An f-string is lexed as one FSTRING token; token_source.cpp splits it into these, with the
// tokens of each `{expression}` in between, before the parser runs.
tokens { FSTRING_START, FSTRING_TEXT, FSTRING_OPEN, FSTRING_SPEC, FSTRING_CLOSE, FSTRING_END }

// Every parse-tree node reserves room for two children up front, saving the reallocations of
// growing its child vector one by one (allocation is most of what a parse costs).
options { contextSuperClass = WeftContext; }
@parser::context {
class WeftContext : public antlr4::ParserRuleContext {
 public:
  WeftContext() { children.reserve(2); }
  WeftContext(antlr4::ParserRuleContext* parent, size_t invokingState)
      : antlr4::ParserRuleContext(parent, invokingState) { children.reserve(2); }
};
}

program : statement* EOF ;

statement
  : (ifStmt | forStmt | whileStmt | withStmt | fnDecl | moduleDecl | layoutMapDecl) NEWLINE?
  | (exprStmt | returnStmt | assertStmt | importStmt | fromImportStmt | meshDecl
     | PASS | BREAK | CONTINUE) NEWLINE
  ;

block : LBRACE statement* RBRACE ;

// ---- simple statements -------------------------------------------------------------------

// An expression statement, a (chained, tuple) assignment or an augmented assignment.
exprStmt : exprList (augOp exprList | (ASSIGN exprList)*) ;
augOp : PLUS_EQ | MINUS_EQ | STAR_EQ | SLASH_EQ | DSLASH_EQ | PERCENT_EQ | POW_EQ | AT_EQ | AMP_EQ | BAR_EQ ;

returnStmt : RETURN exprList? ;
assertStmt : ASSERT expr (COMMA expr)? ;

importStmt : IMPORT (dottedName | STRING) (AS name)? ;
fromImportStmt : FROM (dottedName | STRING) IMPORT (importItems | LPAREN importItems RPAREN) ;
importItems : importItem (COMMA importItem)* COMMA? ;
importItem : name (AS name)? ;
dottedName : name (DOT name)* ;

meshDecl : MESH name LPAREN meshDim (COMMA meshDim)* COMMA? RPAREN ;
meshDim : name ASSIGN expr ;

// ---- compound statements -----------------------------------------------------------------

ifStmt : IF expr block (ELIF expr block)* (ELSE block)? ;
forStmt : FOR forTarget IN expr block ;
// Postfix expressions only, so the `in` of the loop is not read as a comparison.
forTarget : postfix (COMMA postfix)* COMMA? ;
whileStmt : WHILE expr block ;
withStmt : WITH expr (AS name)? block ;

fnDecl : decorator* FN name LPAREN paramList? RPAREN (ARROW typeExpr)? block ;
decorator : AT dottedName (LPAREN argList? RPAREN)? NEWLINE? ;
paramList : param (COMMA param)* COMMA? ;
param : name (COLON typeExpr)? (ASSIGN expr)? ;

moduleDecl : MODULE name (LPAREN paramList? RPAREN)? block ;

layoutMapDecl : LAYOUT_MAP name ON name LBRACE (layoutEntry (entrySep layoutEntry)* entrySep?)? RBRACE ;
layoutEntry : STRING COLON LBRACK (layoutDim (COMMA layoutDim)* COMMA?)? RBRACK ;
layoutDim : name | NONE ;
entrySep : COMMA NEWLINE? | NEWLINE ;

// `f32[None, 784]`, `int`; a negative size is parsed so the builder can explain it.
typeExpr : (NAME | NONE) (LBRACK (typeDim (COMMA typeDim)* COMMA?)? RBRACK)? ;
typeDim : NONE | MINUS? INT ;

// ---- expressions -------------------------------------------------------------------------

exprList : expr (COMMA expr)* COMMA? ;

// Alternatives from the tightest binding to the loosest, as in Python. `**` binds tighter than
// a unary operator on its left (-2**2 is -4) and takes one on its right (2**-1).
// A name or literal is a token directly under primaryExpr, not a rule of its own, and the
// rules here carry no labels: both save work per token on large files (see ast_builder.cpp).
expr
  : (NAME | MESH | ON | MODULE | LAYOUT_MAP | INT | FLOAT | STRING | TRUE | FALSE | NONE | group | fstring) trailer*  # primaryExpr
  | <assoc=right> expr POW expr                            # powerExpr
  | (MINUS | PLUS) expr                                    # unaryExpr
  | expr (STAR | SLASH | DSLASH | PERCENT | AT) expr       # mulExpr
  | expr (PLUS | MINUS) expr                               # addExpr
  | expr AMP expr                                          # bitAndExpr
  | expr BAR expr                                          # bitOrExpr
  | expr compOp expr                                       # compareExpr
  | NOT expr                                               # notExpr
  | expr AND expr                                          # andExpr
  | expr OR expr                                           # orExpr
  | <assoc=right> expr IF expr ELSE expr                   # condExpr
  | FN LPAREN paramList? RPAREN FAT_ARROW expr             # lambdaExpr
  ;

compOp : EQ | NE | LT | LE | GT | GE | IN | NOT IN | IS NOT? ;

// Calls, indexing and attributes are a loop, not left recursion: `a.b.c(d)[e]` is flat.
postfix : (NAME | MESH | ON | MODULE | LAYOUT_MAP | INT | FLOAT | STRING | TRUE | FALSE | NONE | group | fstring) trailer* ;

// f"epoch {e}: loss {l:.4f}": text, and expressions with an optional format spec.
fstring : FSTRING_START (FSTRING_TEXT | FSTRING_OPEN expr FSTRING_SPEC? FSTRING_CLOSE)* FSTRING_END ;
trailer : LPAREN argList? RPAREN | LBRACK subscriptList RBRACK | DOT (NAME | MESH | ON | MODULE | LAYOUT_MAP) ;

argList : argument (COMMA argument)* COMMA? ;
argument : (NAME | MESH | ON | MODULE | LAYOUT_MAP) ASSIGN expr | expr ;

subscriptList : subscript (COMMA subscript)* COMMA? ;
subscript : ELLIPSIS | expr (COLON expr? (COLON expr?)?)? | COLON expr? (COLON expr?)? ;

// `( )` is the empty tuple, `(e)` a parenthesised expression, `(e,)` and `(a, b)` tuples;
// `[e for x in xs if c]` a list comprehension, `{k: v for x in xs}` a dict comprehension.
// Inside braces, entries with a colon make a dict and entries without one a set (`{1, 2}`,
// `{x for x in xs}`); `{}` is the empty dict, as in Python. The builder rejects a mix.
group
  : LPAREN (expr (COMMA expr)* COMMA?)? RPAREN
  | LBRACK (expr (compFor+ | (COMMA expr)* COMMA?))? RBRACK
  | LBRACE (dictEntry (compFor+ NEWLINE? | (entrySep dictEntry)* entrySep?))? RBRACE
  ;
dictEntry : expr (COLON expr)? ;
compFor : FOR forTarget IN expr (IF expr)* ;

// `mesh`, `on`, `module` and `layout_map` are keywords only where a declaration can start, so
// they stay usable as names (`layout.mesh`, `Layout(dims, mesh=grid)`).
name : NAME | MESH | ON | MODULE | LAYOUT_MAP ;

// ---- lexer -------------------------------------------------------------------------------

MODULE : 'module' ;
FN : 'fn' ;
RETURN : 'return' ;
IF : 'if' ;
ELIF : 'elif' ;
ELSE : 'else' ;
FOR : 'for' ;
IN : 'in' ;
IS : 'is' ;
WHILE : 'while' ;
BREAK : 'break' ;
CONTINUE : 'continue' ;
WITH : 'with' ;
AS : 'as' ;
IMPORT : 'import' ;
FROM : 'from' ;
TRUE : 'true' | 'True' ;  // Python's spellings too, as `None`
FALSE : 'false' | 'False' ;
NONE : 'none' | 'None' ;  // `None` is how type annotations and Python users spell it
AND : 'and' ;
OR : 'or' ;
NOT : 'not' ;
MESH : 'mesh' ;
LAYOUT_MAP : 'layout_map' ;
ON : 'on' ;
ASSERT : 'assert' ;
PASS : 'pass' ;

NAME : [A-Za-z_] [A-Za-z0-9_]* ;
FLOAT : DIGITS '.' DIGITS? EXPONENT? | '.' DIGITS EXPONENT? | DIGITS EXPONENT ;
INT : DIGITS ;
fragment DIGITS : [0-9]+ ;
fragment EXPONENT : [eE] [+-]? DIGITS ;

// `f"..."` on one line; its `{expressions}` are split out after lexing (token_source.cpp).
FSTRING
  : [fF] '"' ('\\' ('\r\n' | .) | ~[\\\r\n"])* '"'
  | [fF] '\'' ('\\' ('\r\n' | .) | ~[\\\r\n'])* '\''
  ;

// Escapes are decoded (and checked) by the AST builder. Triple-quoted strings may span lines.
STRING
  : '"""' ('\\' . | ~'\\')*? '"""'
  | '\'\'\'' ('\\' . | ~'\\')*? '\'\'\''
  | '"' ('\\' ('\r\n' | .) | ~[\\\r\n"])* '"'
  | '\'' ('\\' ('\r\n' | .) | ~[\\\r\n'])* '\''
  ;
// Only win when the string above cannot match: reported as "unterminated string".
UNTERMINATED_STRING
  : '"' ('\\' ('\r\n' | .) | ~[\\\r\n"])*
  | '\'' ('\\' ('\r\n' | .) | ~[\\\r\n'])*
  ;
UNTERMINATED_TRIPLE : '"""' | '\'\'\'' ;

POW_EQ : '**=' ;
DSLASH_EQ : '//=' ;
PLUS_EQ : '+=' ;
MINUS_EQ : '-=' ;
STAR_EQ : '*=' ;
SLASH_EQ : '/=' ;
PERCENT_EQ : '%=' ;
AT_EQ : '@=' ;
AMP_EQ : '&=' ;
BAR_EQ : '|=' ;
POW : '**' ;
DSLASH : '//' ;
ARROW : '->' ;
FAT_ARROW : '=>' ;
EQ : '==' ;
NE : '!=' ;
LE : '<=' ;
GE : '>=' ;
LT : '<' ;
GT : '>' ;
ASSIGN : '=' ;
PLUS : '+' ;
MINUS : '-' ;
STAR : '*' ;
SLASH : '/' ;
PERCENT : '%' ;
AT : '@' ;
AMP : '&' ;
BAR : '|' ;
ELLIPSIS : '...' ;
DOT : '.' ;
COMMA : ',' ;
COLON : ':' ;
SEMI : ';' ;
LPAREN : '(' ;
RPAREN : ')' ;
LBRACK : '[' ;
RBRACK : ']' ;
LBRACE : '{' ;
RBRACE : '}' ;

NEWLINE : '\r'? '\n' ;
LINE_CONTINUATION : '\\' [ \t]* '\r'? '\n' -> skip ;
WS : [ \t\f\r]+ -> skip ;
COMMENT : '#' ~[\r\n]* -> skip ;
// Anything else becomes one token the pre-pass reports, so the lexer itself never errors.
ERROR_CHAR : . ;
