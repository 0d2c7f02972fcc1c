package io.berth.dracel;

import com.google.common.collect.ImmutableList;
import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.cel.checker.CelCheckerBuilder;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.ListType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompilerLibrary;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntimeBuilder;
import dev.cel.runtime.CelRuntimeLibrary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Kubernetes CEL {@code regex} library: {@code <string>.find(<regex>)} (the leftmost match,
 * or "") and {@code <string>.findAll(<regex>[, <limit>])} (successive non-overlapping matches, an
 * empty match right after a previous match skipped, at most {@code limit} when it is not
 * negative), in RE2 syntax through RE2/J, as Go's {@code regexp.FindString} and
 * {@code FindAllString}; an invalid pattern is "Illegal regex: error parsing regexp: ...".
 * Compiled patterns are kept in a bounded concurrent map (cleared past {@value #MAX_CACHED}
 * patterns), as upstream compiles a constant pattern once per program. Thread-safe.
 */
final class RegexLibrary implements CelCompilerLibrary, CelRuntimeLibrary {
  static final RegexLibrary INSTANCE = new RegexLibrary();
  private static final int MAX_CACHED = 256;
  private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

  private RegexLibrary() {
  }

  @Override
  public void setCheckerOptions(CelCheckerBuilder checker) {
    checker.addFunctionDeclarations(
        CelFunctionDecl.newFunctionDeclaration("find",
            CelOverloadDecl.newMemberOverload("string_find_string", SimpleType.STRING,
                SimpleType.STRING, SimpleType.STRING)),
        CelFunctionDecl.newFunctionDeclaration("findAll",
            CelOverloadDecl.newMemberOverload("string_find_all_string",
                ListType.create(SimpleType.STRING), SimpleType.STRING, SimpleType.STRING),
            CelOverloadDecl.newMemberOverload("string_find_all_string_int",
                ListType.create(SimpleType.STRING), SimpleType.STRING, SimpleType.STRING,
                SimpleType.INT)));
  }

  @Override
  public void setRuntimeOptions(CelRuntimeBuilder runtime) {
    runtime.addFunctionBindings(
        CelFunctionBinding.from("string_find_string", String.class, String.class,
            (s, re) -> {
              Matcher m = pattern(re, true).matcher(s);
              return m.find() ? m.group() : "";
            }),
        CelFunctionBinding.from("string_find_all_string", String.class, String.class,
            (s, re) -> findAll(s, re, -1)),
        CelFunctionBinding.from("string_find_all_string_int",
            List.<Class<?>>of(String.class, String.class, Long.class),
            args -> findAll((String) args[0], (String) args[1], (Long) args[2])));
  }

  /**
   * The syntax error of {@code regex} in Go's words ("error parsing regexp: ..."), if any: what
   * upstream's program creation reports for a constant pattern.
   */
  static java.util.Optional<String> syntaxError(String regex) {
    try {
      pattern(regex, false);
      return java.util.Optional.empty();
    } catch (IllegalArgumentException e) {
      return java.util.Optional.of(e.getMessage());
    }
  }

  private static Pattern pattern(String regex, boolean illegalPrefix) {
    Pattern p = PATTERNS.get(regex);
    if (p != null) {
      return p;
    }
    try {
      p = Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException((illegalPrefix ? "Illegal regex: " : "")
          + e.getMessage(), e);
    }
    if (PATTERNS.size() >= MAX_CACHED) {
      PATTERNS.clear();
    }
    PATTERNS.put(regex, p);
    return p;
  }

  // Go's FindAllString: Java's find() also reports the empty match at the end of a match, which
  // Go skips
  private static List<String> findAll(String s, String regex, long limit) {
    Matcher m = pattern(regex, true).matcher(s);
    List<String> out = new ArrayList<>();
    int prevEnd = -1;
    while ((limit < 0 || out.size() < limit) && m.find()) {
      boolean skip = m.start() == m.end() && m.start() == prevEnd;
      prevEnd = m.end();
      if (!skip) {
        out.add(m.group());
      }
    }
    return ImmutableList.copyOf(out);
  }
}
