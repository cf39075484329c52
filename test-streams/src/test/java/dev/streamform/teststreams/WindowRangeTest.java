package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import dev.streamform.policies.time.Timestamps;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.transforms.windows.WindowRange;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An event at the edge of the times a pipeline holds (0001-01-01T00:00:00Z to
 * 9999-12-31T23:59:59.999Z) can fall in a window that reaches past that edge: a local month that
 * began in the year 0, an hour that ends in the year 10000. Such a window cannot be written or read
 * back as a timestamp, so the event is quarantined with a reason naming the window, and the run
 * goes on (before, `streamform test` stopped: "'0000-12-01T10:29:20Z' is out of range"). Each
 * fixture is written by hand, and the oracle gives the DirectRunner's outcome.
 */
class WindowRangeTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());

  @TempDir Path dir;

  @Test
  void aLocalMonthThatBeganBeforeTheYearOneQuarantinesItsEvent() throws Exception {
    Path p =
        FixtureProjects.copy(FixtureProjects.under("fixtures/calendar/daily-revenue-berlin"), dir);
    Path declared = p.resolve("streamform.yml");
    Files.writeString(
        declared,
        Files.readString(declared)
            .replaceAll("window: 1d .*", "window: 1mo")
            .replaceAll("time_zone: Europe/Berlin .*", "time_zone: Pacific/Kiritimati"));
    // in the year 1, Kiritimati's local mean time is 10:29:20 behind UTC: the instant
    // 0001-01-01T00:00:00Z is on the local 31 December of the year 0
    quarantinesOneAsTheOracleDoes(
        p,
        "daily_revenue",
        """
        model: daily_revenue
        given:
          - event: { store_id: s1, amount: 5.00, sold_at: "0001-01-01T00:00:00Z" }
          - event: { store_id: s1, amount: 7.00, sold_at: "2026-10-25T12:00:00Z" }
        expect:
          - { window_start: "2026-09-30T10:00:00Z", window_end: "2026-10-31T10:00:00Z", store_id: s1,
              revenue: 7.00, sales: 1, revision: 1, status: on_time }
          - { window_start: "2026-09-30T10:00:00Z", window_end: "2026-10-31T10:00:00Z", store_id: s1,
              revenue: 7.00, sales: 1, revision: 1, status: final }
        quarantined:
          - { store_id: s1, amount: 5.00, reason: "event time 0001-01-01T00:00:00Z is in the window [0000-12-01T10:29:20Z, 0001-01-01T10:29:20Z), which begins before 0001-01-01T00:00:00Z" }
        """);
  }

  @Test
  void anHourThatEndsInTheYear10000QuarantinesItsEvent() throws Exception {
    Path p = FixtureProjects.copy(FixtureProjects.under("fixtures/time/hourly-revenue"), dir);
    quarantinesOneAsTheOracleDoes(
        p,
        "hourly_revenue",
        """
        model: hourly_revenue
        given:
          - event: { merchant_id: 7, amount: 3.00, ordered_at: "9999-12-31T22:59:59.999Z" }
          - event: { merchant_id: 7, amount: 4.00, ordered_at: "9999-12-31T23:00:00Z" }
        expect:
          - { window_start: "9999-12-31T22:00:00Z", window_end: "9999-12-31T23:00:00Z", merchant_id: 7,
              revenue: 3.00, orders: 1, revision: 1, status: on_time }
          - { window_start: "9999-12-31T22:00:00Z", window_end: "9999-12-31T23:00:00Z", merchant_id: 7,
              revenue: 3.00, orders: 1, revision: 1, status: final }
        quarantined:
          - { merchant_id: 7, amount: 4.00, reason: "event time 9999-12-31T23:00:00Z is in the window [9999-12-31T23:00:00Z, +10000-01-01T00:00:00Z), which ends after 9999-12-31T23:59:59.999Z" }
        """);
  }

  /** The stage's range is the timestamps' (policies): both are core's EventTimeRange. */
  @Test
  void theRangeIsTheTimestamps() {
    assertThat(WindowRange.MIN_MILLIS, is(Timestamps.MIN.toEpochMilli()));
    assertThat(WindowRange.MAX_MILLIS, is(Timestamps.MAX.toEpochMilli()));
  }

  private static void quarantinesOneAsTheOracleDoes(Path p, String modelName, String fixture)
      throws Exception {
    FixtureVerdict v = FixtureProjects.passes(p, "fixtures/range.yml", fixture);
    assertThat(v.render(), containsString("1 event processed"));
    FixtureProjects.assertOracleAgrees(p, "fixtures/range.yml", modelName, 1);
  }
}
