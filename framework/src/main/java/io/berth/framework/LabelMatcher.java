package io.berth.framework;

import java.util.Map;

/**
 * A compiled label selector: decides whether a label set matches. Implementations are immutable
 * and thread-safe. {@link #EVERYTHING} is what an empty selector means, {@link #NOTHING} what a
 * missing (null) selector means where upstream uses {@code labels.Nothing()}.
 */
@FunctionalInterface
public interface LabelMatcher {
  LabelMatcher EVERYTHING = labels -> true;
  LabelMatcher NOTHING = labels -> false;

  boolean matches(Map<String, String> labels);
}
