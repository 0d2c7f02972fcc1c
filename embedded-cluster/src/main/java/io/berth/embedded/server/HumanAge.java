package io.berth.embedded.server;

import java.time.Duration;

/**
 * Formats an age the way kubectl and kube-apiserver's table printers do ({@code 45s}, {@code 3m20s}, {@code 5h},
 * {@code 12d}). Stateless and thread-safe.
 */
final class HumanAge {

  private HumanAge() {
  }

  static String format(Duration d) {
    long seconds = d.getSeconds();
    if (seconds < -1) {
      return "<invalid>";
    }
    if (seconds < 0) {
      return "0s";
    }
    if (seconds < 60 * 2) {
      return seconds + "s";
    }
    long minutes = seconds / 60;
    if (minutes < 10) {
      long s = seconds % 60;
      return s == 0 ? minutes + "m" : minutes + "m" + s + "s";
    }
    if (minutes < 60 * 3) {
      return minutes + "m";
    }
    long hours = minutes / 60;
    if (hours < 8) {
      long m = minutes % 60;
      return m == 0 ? hours + "h" : hours + "h" + m + "m";
    }
    if (hours < 48) {
      return hours + "h";
    }
    if (hours < 24 * 8) {
      long h = hours % 24;
      return h == 0 ? (hours / 24) + "d" : (hours / 24) + "d" + h + "h";
    }
    if (hours < 24 * 365 * 2) {
      return (hours / 24) + "d";
    }
    if (hours < 24 * 365 * 8) {
      long days = (hours / 24) % 365;
      return days == 0 ? (hours / 24 / 365) + "y" : (hours / 24 / 365) + "y" + days + "d";
    }
    return (hours / 24 / 365) + "y";
  }
}
