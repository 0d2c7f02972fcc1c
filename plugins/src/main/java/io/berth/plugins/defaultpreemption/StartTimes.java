package io.berth.plugins.defaultpreemption;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * Parses a pod's {@code status.startTime} (an RFC 3339 {@code metav1.Time}) for the victim ordering, which reads
 * it for every pod it compares: a sort of a node's potential victims and the candidate comparison read the same
 * timestamps over and over on the scheduling thread (with {@link OffsetDateTime#parse} that was 16% of the
 * scheduling thread's samples in {@code PreemptionEndToEndRun}). The form every API server writes,
 * {@code yyyy-MM-ddTHH:mm:ssZ} (UTC, whole seconds, as metav1.Time serializes), is read digit by digit; any other
 * form (an offset, fractions of a second) goes through {@link OffsetDateTime#parse}, so the result is the same
 * instant either way. Stateless and thread-safe.
 */
final class StartTimes {

  /** What {@link #canonicalEpochSecond} returns for a text that is not in the canonical form. */
  static final long NOT_CANONICAL = Long.MIN_VALUE;

  private StartTimes() {}

  /**
   * The instant {@code text} denotes; throws {@link DateTimeException} when it is not an RFC 3339 date-time (as
   * {@code OffsetDateTime.parse} does, including for a date that does not exist).
   */
  static Instant parse(String text) {
    long seconds = canonicalEpochSecond(text);
    if (seconds != NOT_CANONICAL) {
      return Instant.ofEpochSecond(seconds);
    }
    return OffsetDateTime.parse(text).toInstant();
  }

  /**
   * The epoch second of {@code text} when it is a valid date-time in the canonical form {@code yyyy-MM-ddTHH:mm:ssZ},
   * else {@link #NOT_CANONICAL} (for null, another form, or a date or time that does not exist). Allocates nothing:
   * the victim ordering compares start times with it.
   */
  static long canonicalEpochSecond(String text) {
    if (text == null || text.length() != 20 || text.charAt(4) != '-' || text.charAt(7) != '-'
        || text.charAt(10) != 'T' || text.charAt(13) != ':' || text.charAt(16) != ':' || text.charAt(19) != 'Z') {
      return NOT_CANONICAL;
    }
    int year = digits(text, 0, 4);
    int month = digits(text, 5, 2);
    int day = digits(text, 8, 2);
    int hour = digits(text, 11, 2);
    int minute = digits(text, 14, 2);
    int second = digits(text, 17, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1 || day > lengthOfMonth(year, month)
        || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
      return NOT_CANONICAL;
    }
    return epochDay(year, month, day) * 86_400L + hour * 3_600L + minute * 60L + second;
  }

  private static int lengthOfMonth(int year, int month) {
    if (month == 2) {
      boolean leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
      return leap ? 29 : 28;
    }
    return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
  }

  /**
   * Days from 1970-01-01 to a valid proleptic Gregorian date of a year in [0, 9999], by counting in eras of 400
   * years that begin on 1 March (so that the leap day is the last day of its year): the day of the era is the
   * year of the era's 365 days a year plus the leap days so far, plus the day of the year from 1 March.
   */
  private static long epochDay(int year, int month, int day) {
    int y = month <= 2 ? year - 1 : year;
    int era = Math.floorDiv(y, 400);
    int yearOfEra = y - era * 400;
    int monthFromMarch = month > 2 ? month - 3 : month + 9;
    int dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1;
    int dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    // 719,468 days from 0000-03-01 to 1970-01-01
    return era * 146_097L + dayOfEra - 719_468L;
  }

  /** The non-negative number in {@code text[from, from + count)}, or -1 when a character is not a digit. */
  private static int digits(String text, int from, int count) {
    int value = 0;
    for (int i = from; i < from + count; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
