package dev.streamform.teststreams;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.Oracle;
import dev.streamform.teststreams.oracle.ScoringOracle;
import dev.streamform.teststreams.oracle.WindowedOracle;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The copies of one {@code event_id} on two partitions: the first in log order is kept (ADR 0017) —
 * by the stamp (its partition's watermark at arrival, undefined first), then partition, then offset
 * — whichever was delivered first. The copies have one payload but not one partition, offset or
 * arrival watermark, so the copy kept decides whether the event is late, which window revision or
 * changelog record it is in, and what the duplicates output names. Each case runs on the
 * DirectRunner and is compared with its reference oracle, for a windowed, an upsert (late events
 * dropped and kept) and a scoring model.
 *
 * <p>The trace generator repeated an id only on its own partition, where delivery order is log
 * order, so the fuzz tests never put the two orders apart. Before the oracles judged ids in log
 * order (they judged them in delivery order), the cases where the copy delivered first is not the
 * first in log order disagreed.
 */
class CrossPartitionRepeatsTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());

  @TempDir static Path dir;
  private static Project project;

  @BeforeAll
  static void project() throws IOException, InvalidProjectException {
    String schema =
        String.join(
            "\n",
            "    schema:",
            "      order_id: string",
            "      customer_id: int64",
            "      amount: decimal(12,2)",
            "      ordered_at: timestamp",
            "    event_time: ordered_at",
            "    watermark: 5m",
            "    event_id: order_id",
            "    duplicates_within: 30m",
            "");
    write(
        "sources.yml",
        "sources:\n  orders:\n    connector: file\n    path: orders.jsonl\n"
            + schema
            + "    late_events: drop\n"
            + "  kept_orders:\n    connector: file\n    path: kept_orders.jsonl\n"
            + schema
            + "    late_events: keep\n");
    write(
        "streamform.yml",
        String.join(
            "\n",
            "models:",
            "  quarter_spend:",
            "    key: [customer_id]",
            "    window: 15m",
            "    allowed_lateness: 5m",
            "  customer_spend:",
            "    materialized: upsert",
            "    key: [customer_id]",
            "  kept_spend:",
            "    materialized: upsert",
            "    key: [customer_id]",
            "  order_risk:",
            "    key: [customer_id]",
            "    decisions:",
            "      features_over: 1h",
            "      linear: models/order_risk.linear.yml",
            "      contract: as_of_occurrence",
            "      lateness: 5m",
            "      late_action: revise",
            "      late_updates_state: true",
            ""));
    String select = "SELECT customer_id, SUM(amount) AS spend, COUNT(*) AS orders FROM source(";
    write("models/quarter_spend.sql", select + "'orders') GROUP BY customer_id\n");
    write("models/customer_spend.sql", select + "'orders') GROUP BY customer_id\n");
    write("models/kept_spend.sql", select + "'kept_orders') GROUP BY customer_id\n");
    write("models/order_risk.sql", select + "'kept_orders') GROUP BY customer_id\n");
    write("models/order_risk.linear.yml", "bias: 0\nweights: { amount: 1, spend: 0.1 }\n");
    project = Project.load(dir);
  }

  /** One event: on partition {@code p}, id {@code id}, customer 1, at 2026-08-30T{@code hhmm}. */
  private record Event(int p, String id, String hhmm) {}

  private static Event on(int p, String id, String hhmm) {
    return new Event(p, id, hhmm);
  }

  /**
   * The cases: each partition's log, delivered in an order that puts the copies of {@code p1}
   * first-delivered-first-in-log-order or not.
   */
  static List<Arguments> cases() {
    return List.of(
        // p1's copy on partition 0 arrives behind W_0 = 10:25 (late there, too late for its
        // window); partition 1's copy is its partition's first event (stamp undefined), so it is
        // first in log order. Delivered first: partition 0's late copy.
        Arguments.of(
            "late copy delivered first",
            List.of(
                on(0, "p9", "10:30"),
                on(0, "p1", "10:00"),
                on(1, "p1", "10:00"),
                on(1, "p5", "10:40"))),
        Arguments.of(
            "on-time copy delivered first",
            List.of(
                on(1, "p1", "10:00"),
                on(0, "p9", "10:30"),
                on(0, "p1", "10:00"),
                on(1, "p5", "10:40"))),
        // the same with the partitions swapped: partition 0's copy is first in log order by its
        // stamp, partition 1's late one is delivered first
        Arguments.of(
            "late copy on the higher partition delivered first",
            List.of(
                on(1, "p9", "10:30"),
                on(1, "p1", "10:00"),
                on(0, "p1", "10:00"),
                on(0, "p5", "10:40"))),
        // neither copy late: partition 0's arrives at W_0 = 10:05, partition 1's first
        Arguments.of(
            "on-time copies, the later stamp delivered first",
            List.of(
                on(0, "p9", "10:10"),
                on(0, "p1", "10:06"),
                on(1, "p1", "10:06"),
                on(1, "p5", "10:40"))),
        // both stamps undefined: partition then offset decides (partition 0's)
        Arguments.of(
            "equal stamps, the higher partition delivered first",
            List.of(
                on(1, "p1", "10:06"),
                on(0, "p1", "10:06"),
                on(1, "p5", "10:40"),
                on(0, "p9", "10:30"))),
        // both stamps defined and equal-ordered by them: W_0 = 10:01 < W_1 = 10:20
        Arguments.of(
            "both stamped, the later stamp delivered first",
            List.of(
                on(1, "p8", "10:25"),
                on(1, "p1", "10:21"),
                on(0, "p7", "10:06"),
                on(0, "p1", "10:21"),
                on(0, "p5", "10:40"),
                on(1, "p6", "10:45"))));
  }

  private static Fixture fixture(String model, List<Event> events) {
    Fixture.Builder b = Fixture.builder("cross_partition", model);
    for (Event e : events) {
      Map<String, Object> values = new LinkedHashMap<>();
      values.put("order_id", e.id());
      values.put("customer_id", 1L);
      values.put("amount", new BigDecimal("10.00"));
      values.put("ordered_at", Instant.parse("2026-08-30T" + e.hhmm() + ":00Z"));
      b.event(e.p(), values);
    }
    return b.build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theEngineAndTheOraclesKeepTheFirstCopyInLogOrder(String name, List<Event> events)
      throws Exception {
    List<String> disagreeing = new ArrayList<>();
    for (String m : List.of("quarter_spend", "customer_spend", "kept_spend", "order_risk")) {
      DeclaredModel model = DeclaredModel.of(project, m);
      Fixture f = fixture(m, events);
      FixtureOutcome oracle =
          model.windowed()
              ? WindowedOracle.of(model).outcome(f)
              : model.model().decisions().isPresent()
                  ? ScoringOracle.of(model).run(f)
                  : Oracle.of(model).run(f);
      String expected = oracle.canonical();
      String actual = DIRECT.run(model, f).canonical();
      if (!expected.equals(actual)) {
        disagreeing.add(m + ":\n--- oracle\n" + expected + "--- run\n" + actual);
      }
    }
    assertEquals(List.of(), disagreeing, name + ": " + String.join("\n", disagreeing));
  }

  private static void write(String relative, String text) throws IOException {
    Path f = dir.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
  }
}
