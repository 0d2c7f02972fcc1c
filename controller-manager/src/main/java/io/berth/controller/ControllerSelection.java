package io.berth.controller;

import io.berth.component.ConfigurationException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The value of {@code --controllers}, with kube-controller-manager's syntax: a comma-separated list where
 * {@code *} enables every controller that is on by default ({@link ControllerRegistry#disabledByDefault} are
 * not), {@code foo} enables the
 * controller named {@code foo} and {@code -foo} disables it. For each controller the first entry naming it decides;
 * if none does, it is enabled only when {@code *} is present. An empty list enables nothing. Immutable.
 *
 * @param entries the trimmed, non-empty entries in flag order
 */
public record ControllerSelection(List<String> entries) {

  /** The flag's name. */
  public static final String FLAG = "--controllers";
  /** The flag's default: every controller. */
  public static final String ALL = "*";

  public ControllerSelection {
    entries = List.copyOf(Objects.requireNonNull(entries, "entries"));
  }

  /** Parses the flag value ({@code "*,-deployment"}). */
  public static ControllerSelection parse(String value) {
    List<String> entries = new ArrayList<>();
    for (String entry : Arrays.asList(value.split(","))) {
      String trimmed = entry.trim();
      if (!trimmed.isEmpty()) {
        entries.add(trimmed);
      }
    }
    return new ControllerSelection(entries);
  }

  /**
   * The controllers of {@code registry} this selection enables, sorted.
   *
   * @throws ConfigurationException naming {@code --controllers} and every entry that names no registered controller
   */
  public SortedSet<String> enabled(ControllerRegistry registry) {
    SortedSet<String> known = registry.names();
    List<String> unknown = new ArrayList<>();
    for (String entry : entries) {
      String name = entry.startsWith("-") ? entry.substring(1) : entry;
      if (!entry.equals(ALL) && !known.contains(name)) {
        unknown.add(entry);
      }
    }
    if (!unknown.isEmpty()) {
      throw new ConfigurationException(FLAG, FLAG + ": unknown controller" + (unknown.size() > 1 ? "s " : " ")
          + String.join(", ", unknown.stream().map(u -> "\"" + u + "\"").toList()) + " (known controllers: "
          + (known.isEmpty() ? "none" : String.join(", ", known)) + ")");
    }
    SortedSet<String> enabled = new TreeSet<>();
    SortedSet<String> off = registry.disabledByDefault();
    for (String name : known) {
      if (isEnabled(name, off.contains(name))) {
        enabled.add(name);
      }
    }
    return Collections.unmodifiableSortedSet(enabled);
  }

  /** Whether this selection enables {@code name}, a controller that is on by default. */
  public boolean isEnabled(String name) {
    return isEnabled(name, false);
  }

  /**
   * Whether this selection enables {@code name} (kube-controller-manager's {@code IsControllerEnabled}): the first
   * entry naming it decides; otherwise {@code *} enables it unless it is {@code disabledByDefault}.
   */
  public boolean isEnabled(String name, boolean disabledByDefault) {
    boolean star = false;
    for (String entry : entries) {
      if (entry.equals(name)) {
        return true;
      }
      if (entry.equals("-" + name)) {
        return false;
      }
      if (entry.equals(ALL)) {
        star = true;
      }
    }
    return star && !disabledByDefault;
  }
}
