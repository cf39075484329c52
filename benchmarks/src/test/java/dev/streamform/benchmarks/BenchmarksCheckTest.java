package dev.streamform.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 29: the benchmarks check every round against the oracle, the warm-up included, not only the
 * last one; a round that differs is named with its figures.
 */
class BenchmarksCheckTest {
  private static final Map<String, Long> ORACLE =
      Map.of("late_events_dropped", 12L, "outputs", 900L, "inserts", 100L, "values_digest", 77L);

  private static Benchmarks.Case caseWith(Map<String, Long> warmUp, Map<String, Long> measured) {
    Benchmarks.Case c = new Benchmarks.Case("streamform", "flink-p2", null, null);
    c.expected = ORACLE;
    c.rounds.add(warmUp);
    c.rounds.add(measured);
    c.rounds.add(measured);
    c.counters = measured;
    return c;
  }

  @Test
  void aWrongWarmUpRoundIsCaughtAndNamedThoughTheLastRoundIsRight() {
    Map<String, Long> wrong = new LinkedHashMap<>(ORACLE);
    wrong.put("outputs", 899L);
    Benchmarks.Case c = caseWith(wrong, ORACLE);

    Benchmarks.check(c, Benchmarks.CHANGELOG_CHECK, "changelog");

    assertTrue(c.differs, "the warm-up round's answer differs from the oracle's: " + c.state);
    assertThat(c.state, containsString("warm-up: outputs 899 (oracle 900)"));
    assertThat(c.state, not(containsString("round 1")));
  }

  @Test
  void aWrongMiddleRoundIsNamedByItsNumber() {
    Map<String, Long> wrong = new LinkedHashMap<>(ORACLE);
    wrong.put("values_digest", 78L);
    Benchmarks.Case c = caseWith(ORACLE, ORACLE);
    c.rounds.set(1, wrong);

    Benchmarks.check(c, Benchmarks.CHANGELOG_CHECK, "changelog");

    assertTrue(c.differs, c.state);
    assertThat(c.state, containsString("round 1: values_digest 78 (oracle 77)"));
  }

  @Test
  void everyRoundRightIsAMatchAndNoRoundIsNot() {
    Benchmarks.Case right = caseWith(ORACLE, ORACLE);
    Benchmarks.check(right, Benchmarks.CHANGELOG_CHECK, "changelog");
    assertFalse(right.differs, right.state);
    assertThat(right.state, containsString("= oracle in all 3 rounds"));

    Benchmarks.Case none = new Benchmarks.Case("streamform", "flink-p2", null, null);
    none.expected = ORACLE;
    Benchmarks.check(none, Benchmarks.CHANGELOG_CHECK, "changelog");
    assertTrue(none.differs, "a case that ran no round has matched nothing: " + none.state);
  }
}
