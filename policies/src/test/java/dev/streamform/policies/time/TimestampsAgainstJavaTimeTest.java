package dev.streamform.policies.time;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThan;

import com.ethlo.time.ITU;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Timestamps#withOffset} reads an event's date-time with ITU where ITU reads it and with
 * java.time's ISO parser otherwise (ADR 0168). Java.time is the oracle: over generated text — RFC
 * 3339 as producers write it, and every part of it bent (digits too many or too few, values out of
 * range, other separators, fractions of any length, offsets of every shape, leap seconds, trailing
 * text) — the answer must be java.time's: the same instant, or refused as java.time refuses it.
 */
class TimestampsAgainstJavaTimeTest {
  private static final int CASES = 100_000;

  @Test
  void readsWhatJavaTimeReadsAndNothingElse() {
    Random random = new Random(20261206);
    List<String> differ = new ArrayList<>();
    int readByItu = 0;
    for (int i = 0; i < CASES; i++) {
      String text = random.nextInt(4) == 0 ? written(random) : bent(random);
      if (readsByItu(text)) {
        readByItu++;
      }
      String expected = outcome(() -> Timestamps.javaTime(text));
      String actual = outcome(() -> Timestamps.withOffset(text));
      if (!expected.equals(actual) && differ.size() < 10) {
        differ.add("'" + text + "': java.time " + expected + ", read " + actual);
      }
    }
    assertThat(differ, empty());
    // the generated text exercises ITU's path, not only the fallback
    assertThat(readByItu, greaterThan(CASES / 4));
  }

  /** {@link Timestamps#format} writes what java.time's {@code ISO_INSTANT} writes. */
  @Test
  void writesWhatJavaTimeWrites() {
    Random random = new Random(20261207);
    List<String> differ = new ArrayList<>();
    List<Instant> instants =
        new ArrayList<>(
            List.of(
                Timestamps.MIN,
                Timestamps.MAX,
                Timestamps.MIN.minusMillis(1),
                Timestamps.MAX.plusMillis(1),
                Instant.EPOCH,
                Instant.EPOCH.minusMillis(1),
                Instant.MIN,
                Instant.MAX));
    for (int i = 0; i < CASES; i++) {
      Instant t = Instant.ofEpochMilli(random.nextLong() % 300_000_000_000_000L);
      switch (random.nextInt(4)) {
        case 0:
          t = t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
          break;
        case 1:
          t = t.plusNanos(random.nextInt(1_000_000)); // finer than a millisecond
          break;
        default:
          break;
      }
      instants.add(t);
    }
    for (Instant t : instants) {
      String expected = java.time.format.DateTimeFormatter.ISO_INSTANT.format(t);
      String actual = Timestamps.format(t);
      if (!expected.equals(actual) && differ.size() < 10) {
        differ.add(t.getEpochSecond() + "s " + t.getNano() + "ns: " + actual + " not " + expected);
      }
    }
    assertThat(differ, empty());
  }

  private static boolean readsByItu(String text) {
    try {
      ITU.parseDateTime(text);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static String outcome(java.util.function.Supplier<Instant> read) {
    try {
      return read.get().toString();
    } catch (RuntimeException e) {
      return "refused (" + e.getClass().getSimpleName() + ")";
    }
  }

  /** A date-time as a producer writes it: java.time's own text of an instant at some offset. */
  private static String written(Random r) {
    Instant t = Instant.ofEpochMilli(r.nextLong() % 4_000_000_000_000L);
    if (r.nextBoolean()) {
      t = t.plusNanos(r.nextInt(1_000_000));
    }
    ZoneOffset offset = ZoneOffset.ofTotalSeconds((r.nextInt(37) - 18) * 1800);
    return r.nextBoolean() ? t.toString() : OffsetDateTime.ofInstant(t, offset).toString();
  }

  /** RFC 3339's parts, each now and then (one time in six) bent out of shape. */
  private static String bent(Random r) {
    StringBuilder s = new StringBuilder();
    s.append(
        part(
            r,
            digits(r, 4, 1960, 2100),
            digits(r, 4, 0, 10000),
            digits(r, 3, 0, 1000),
            digits(r, 5, 0, 100000),
            "+" + digits(r, 5, 10000, 100000),
            "-" + digits(r, 4, 0, 10000)));
    s.append(part(r, "-", "/", ""));
    s.append(part(r, digits(r, 2, 1, 13), digits(r, 2, 0, 14), digits(r, 1, 1, 10)));
    s.append(part(r, "-", "."));
    s.append(part(r, digits(r, 2, 1, 29), digits(r, 2, 0, 33), digits(r, 1, 1, 10)));
    s.append(part(r, pick(r, "T", "t", " "), "_", "", "TT"));
    s.append(part(r, digits(r, 2, 0, 24), digits(r, 2, 0, 26), digits(r, 1, 0, 10)));
    s.append(part(r, ":", ""));
    s.append(part(r, digits(r, 2, 0, 60), digits(r, 2, 58, 62), digits(r, 1, 0, 10)));
    if (r.nextInt(8) > 0) {
      s.append(part(r, ":", ""));
      s.append(part(r, digits(r, 2, 0, 60), "60", "61", digits(r, 1, 0, 10)));
    }
    if (r.nextBoolean()) {
      s.append(part(r, ".", ",", ""))
          .append(
              part(
                  r,
                  digits(r, 1 + r.nextInt(9), 0, Long.MAX_VALUE),
                  "",
                  digits(r, 10 + r.nextInt(3), 0, Long.MAX_VALUE)));
    }
    s.append(
        part(
            r,
            pick(r, "Z", "z", offset(r, ":")),
            "",
            offset(r, ""),
            "+" + digits(r, 2, 0, 20),
            offset(r, ":") + ":" + digits(r, 2, 0, 61),
            "-00:00",
            "+24:00",
            "+18:01",
            "UTC",
            " Z"));
    if (r.nextInt(20) == 0) {
      s.append(pick(r, " ", "x", "Z", "0", "[UTC]"));
    }
    return s.toString();
  }

  /** {@code valid} five times in six, else one of {@code bent}. */
  private static String part(Random r, String valid, String... bent) {
    return r.nextInt(6) > 0 ? valid : pick(r, bent);
  }

  private static String offset(Random r, String separator) {
    return (r.nextBoolean() ? "+" : "-")
        + part(r, digits(r, 2, 0, 15), digits(r, 2, 0, 25), digits(r, 1, 0, 10))
        + separator
        + part(r, pick(r, "00", "30", "45"), digits(r, 2, 0, 61), digits(r, 1, 0, 10));
  }

  /** {@code width} digits (zero-padded, cut to the width) of a number in [from, to). */
  private static String digits(Random r, int width, long from, long to) {
    long n = from + (long) (r.nextDouble() * (double) (to - from));
    StringBuilder s = new StringBuilder(Long.toString(Math.abs(n)));
    while (s.length() < width) {
      s.insert(0, '0');
    }
    return s.substring(s.length() - width);
  }

  private static String pick(Random r, String... choices) {
    return choices[r.nextInt(choices.length)];
  }
}
