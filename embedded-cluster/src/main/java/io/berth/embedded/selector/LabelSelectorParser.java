package io.berth.embedded.selector;

import io.berth.embedded.selector.LabelRequirement.Operator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Parser for the query-string form of a label selector ({@code labelSelector=} on list and watch),
 * following apimachinery's {@code labels.Parse}: a lexer that splits the input into identifiers and
 * operator tokens, then a recursive-descent parser over the tokens. One instance parses one string and
 * is confined to the calling thread.
 *
 * <pre>
 *   selector    ::= requirement | requirement "," selector
 *   requirement ::= ["!"] KEY [ set-restriction | exact-restriction ]
 *   set-restriction   ::= ("in" | "notin") "(" VALUE {"," VALUE} ")"
 *   exact-restriction ::= ("=" | "==" | "!=" | ">" | "<") VALUE
 * </pre>
 *
 * <p>Quirks kept from upstream: {@code in} and {@code notin} are keywords only in operator position (a
 * key or value may be named {@code in}); {@code x in ()} means {@code x in ("")}; a value may be empty
 * ({@code x=} selects an empty value); set values are de-duplicated and sorted.
 */
final class LabelSelectorParser {

  private enum Token {
    ERROR, END, CLOSE_PAREN, COMMA, NOT, DOUBLE_EQUALS, EQUALS, GREATER, IDENTIFIER, IN, LESS, NOT_EQUALS,
    NOT_IN, OPEN_PAREN
  }

  private record Item(Token token, String literal) {}

  private static final Map<String, Token> LITERALS = Map.ofEntries(
      Map.entry(")", Token.CLOSE_PAREN), Map.entry(",", Token.COMMA), Map.entry("!", Token.NOT),
      Map.entry("==", Token.DOUBLE_EQUALS), Map.entry("=", Token.EQUALS), Map.entry(">", Token.GREATER),
      Map.entry("in", Token.IN), Map.entry("<", Token.LESS), Map.entry("!=", Token.NOT_EQUALS),
      Map.entry("notin", Token.NOT_IN), Map.entry("(", Token.OPEN_PAREN));

  /** Whether the parser expects a key/operator (keywords are keywords) or values (they are identifiers). */
  private enum Context { KEY_AND_OPERATOR, VALUES }

  private final List<Item> items;
  private int position;

  private LabelSelectorParser(String input) {
    this.items = lex(input);
  }

  /** Parses {@code input} into requirements in input order; throws IllegalArgumentException when malformed. */
  static List<LabelRequirement> parse(String input) {
    return new LabelSelectorParser(input).parseSelector();
  }

  private List<LabelRequirement> parseSelector() {
    List<LabelRequirement> requirements = new ArrayList<>();
    while (true) {
      Item next = lookahead(Context.VALUES);
      switch (next.token()) {
        case IDENTIFIER, NOT -> {
          try {
            requirements.add(parseRequirement());
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unable to parse requirement: " + e.getMessage(), e);
          }
          Item after = consume(Context.VALUES);
          switch (after.token()) {
            case END -> {
              return requirements;
            }
            case COMMA -> {
              Item following = lookahead(Context.VALUES);
              if (following.token() != Token.IDENTIFIER && following.token() != Token.NOT) {
                throw new IllegalArgumentException(
                    "found '" + following.literal() + "', expected: identifier after ','");
              }
            }
            default -> throw new IllegalArgumentException(
                "found '" + after.literal() + "', expected: ',' or 'end of string'");
          }
        }
        case END -> {
          return requirements;
        }
        default -> throw new IllegalArgumentException(
            "found '" + next.literal() + "', expected: !, identifier, or 'end of string'");
      }
    }
  }

  private LabelRequirement parseRequirement() {
    boolean negated = false;
    Item keyItem = consume(Context.VALUES);
    if (keyItem.token() == Token.NOT) {
      negated = true;
      keyItem = consume(Context.VALUES);
    }
    if (keyItem.token() != Token.IDENTIFIER) {
      throw new IllegalArgumentException("found '" + keyItem.literal() + "', expected: identifier");
    }
    String key = keyItem.literal();
    LabelSyntax.validateKey(key).ifPresent(reason -> {
      throw new IllegalArgumentException("key: Invalid value: \"" + key + "\": " + reason);
    });
    Token after = lookahead(Context.VALUES).token();
    if (negated) {
      // "!key" is complete; anything but ',' or the end is reported by the caller
      return new LabelRequirement(key, Operator.DOES_NOT_EXIST, List.of());
    }
    if (after == Token.END || after == Token.COMMA) {
      return new LabelRequirement(key, Operator.EXISTS, List.of());
    }
    Operator operator = parseOperator();
    List<String> values = switch (operator) {
      case IN, NOT_IN -> parseValueSet();
      default -> List.of(parseExactValue());
    };
    return new LabelRequirement(key, operator, values);
  }

  private Operator parseOperator() {
    Item item = consume(Context.KEY_AND_OPERATOR);
    return switch (item.token()) {
      case IN -> Operator.IN;
      case NOT_IN -> Operator.NOT_IN;
      case EQUALS -> Operator.EQUALS;
      case DOUBLE_EQUALS -> Operator.DOUBLE_EQUALS;
      case NOT_EQUALS -> Operator.NOT_EQUALS;
      case GREATER -> Operator.GREATER_THAN;
      case LESS -> Operator.LESS_THAN;
      default -> throw new IllegalArgumentException(
          "found '" + item.literal() + "', expected: in, notin, =, ==, !=, gt, lt");
    };
  }

  private List<String> parseValueSet() {
    Item open = consume(Context.VALUES);
    if (open.token() != Token.OPEN_PAREN) {
      throw new IllegalArgumentException("found '" + open.literal() + "' expected: '('");
    }
    Item first = lookahead(Context.VALUES);
    switch (first.token()) {
      case IDENTIFIER, COMMA -> {
        TreeSet<String> values = parseIdentifierList();
        Item close = consume(Context.VALUES);
        if (close.token() != Token.CLOSE_PAREN) {
          throw new IllegalArgumentException("found '" + close.literal() + "', expected: ')'");
        }
        return List.copyOf(values);
      }
      case CLOSE_PAREN -> {
        consume(Context.VALUES);
        return List.of("");
      }
      default -> throw new IllegalArgumentException(
          "found '" + first.literal() + "', expected: ',', ')' or identifier");
    }
  }

  /** A possibly empty, comma-separated list of possibly empty values, up to (not including) ')'. */
  private TreeSet<String> parseIdentifierList() {
    TreeSet<String> values = new TreeSet<>();
    while (true) {
      Item item = consume(Context.VALUES);
      switch (item.token()) {
        case IDENTIFIER -> {
          values.add(item.literal());
          Item next = lookahead(Context.VALUES);
          switch (next.token()) {
            case COMMA -> {
              // another value follows
            }
            case CLOSE_PAREN -> {
              return values;
            }
            default -> throw new IllegalArgumentException(
                "found '" + next.literal() + "', expected: ',' or ')'");
          }
        }
        case COMMA -> {
          if (values.isEmpty()) {
            values.add(""); // "(,"
          }
          Token next = lookahead(Context.VALUES).token();
          if (next == Token.CLOSE_PAREN) {
            values.add(""); // ",)"
            return values;
          }
          if (next == Token.COMMA) {
            values.add(""); // ",,"
          }
        }
        default -> throw new IllegalArgumentException(
            "found '" + item.literal() + "', expected: ',', or identifier");
      }
    }
  }

  private String parseExactValue() {
    Token next = lookahead(Context.VALUES).token();
    if (next == Token.END || next == Token.COMMA) {
      return "";
    }
    Item item = consume(Context.VALUES);
    if (item.token() == Token.IDENTIFIER) {
      return item.literal();
    }
    throw new IllegalArgumentException("found '" + item.literal() + "', expected: identifier");
  }

  private Item lookahead(Context context) {
    return inContext(items.get(position), context);
  }

  private Item consume(Context context) {
    Item item = inContext(items.get(position), context);
    if (position < items.size() - 1) {
      position++;
    }
    return item;
  }

  private static Item inContext(Item item, Context context) {
    if (context == Context.VALUES && (item.token() == Token.IN || item.token() == Token.NOT_IN)) {
      return new Item(Token.IDENTIFIER, item.literal());
    }
    return item;
  }

  // ---- lexer -------------------------------------------------------------------------------------

  private static List<Item> lex(String s) {
    List<Item> out = new ArrayList<>();
    int pos = 0;
    while (true) {
      while (pos < s.length() && isWhitespace(s.charAt(pos))) {
        pos++;
      }
      if (pos >= s.length()) {
        out.add(new Item(Token.END, ""));
        return out;
      }
      if (isSpecial(s.charAt(pos))) {
        // longest run of special characters that still forms a known operator
        Item last = null;
        int end = pos;
        StringBuilder buffer = new StringBuilder();
        while (end < s.length() && isSpecial(s.charAt(end))) {
          buffer.append(s.charAt(end));
          Token token = LITERALS.get(buffer.toString());
          if (token != null) {
            last = new Item(token, buffer.toString());
            end++;
          } else if (last != null) {
            break;
          } else {
            end++;
          }
        }
        if (last == null) {
          out.add(new Item(Token.ERROR, "error expected: keyword found '" + buffer + "'"));
          pos = end;
        } else {
          out.add(last);
          pos += last.literal().length();
        }
      } else {
        int end = pos;
        while (end < s.length() && !isSpecial(s.charAt(end)) && !isWhitespace(s.charAt(end))) {
          end++;
        }
        String word = s.substring(pos, end);
        Token keyword = LITERALS.get(word);
        out.add(new Item(keyword == null ? Token.IDENTIFIER : keyword, word));
        pos = end;
      }
    }
  }

  private static boolean isWhitespace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  }

  private static boolean isSpecial(char c) {
    return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
  }
}
