package dev.streamform.policies.plan;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;

import dev.streamform.policies.project.Project;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlanTest {
  @TempDir Path dir;

  private Project project(String source, String model, String sql) throws Exception {
    Files.writeString(dir.resolve("sources.yml"), source);
    Files.writeString(dir.resolve("streamform.yml"), model);
    Files.createDirectories(dir.resolve("models"));
    Files.writeString(dir.resolve("models/customer_metrics.sql"), sql);
    return Project.load(dir);
  }

  private static final String ORDERS =
      "sources:\n  orders:\n    connector: kafka\n    topic: orders\n    schema:\n"
          + "      customer_id: int64\n      amount: decimal(12,2)\n      ordered_at: timestamp\n";

  @Test
  void showsTheClockTheTimeAttributeAndTheFingerprint() throws Exception {
    Project p =
        project(
            ORDERS + "    event_time: ordered_at\n    watermark: 5m\n    late_events: drop\n",
            "models:\n"
                + "  customer_metrics:\n"
                + "    materialized: upsert\n"
                + "    key: [customer_id]\n"
                + "    retention: 30d\n",
            "SELECT customer_id, SUM(amount) AS total_spend, COUNT(*) AS orders FROM"
                + " source('orders') WHERE customer_id IS NOT NULL GROUP BY customer_id");
    String plan = Plan.of(p, "customer_metrics").render();
    assertThat(
        plan,
        containsString(
            "Source\n  name=orders\n  connector=kafka topic=orders\n"
                + "  time=event(ordered_at) watermark=5m late=drop\n"));
    assertThat(plan, containsString("     ↓\nFilter\n  predicate="));
    assertThat(plan, containsString("IS NOT NULL"));
    assertThat(
        plan,
        containsString(
            "  time attribute=ordered_at\n"
                + "     ↓\n"
                + "Aggregate\n"
                + "  key=customer_id\n"
                + "  aggregates=sum(amount), count(*)\n"
                + "  fingerprint=aggregate key=[customer_id] accumulators=[sum(amount):"
                + " decimal(38,2), count(*): int64] retention=30d\n"));
  }

  /**
   * Duplicate detection is a node of the plan with its own state (ADR 0190), as the manifest and
   * {@code plan} have it: explain's plan (text, dot, svg) shows it between the Source and the
   * Filter with its fingerprint, so a change of duplicates_within shows there (review of how
   * results are reported, finding 5: only the Source's digest moved).
   */
  @Test
  void duplicateDetectionIsANodeBetweenTheSourceAndTheFilter() throws Exception {
    Project p =
        project(
            ORDERS.replace("    schema:\n", "    schema:\n      order_id: string\n")
                + "    event_time: ordered_at\n    watermark: 5m\n"
                + "    event_id: order_id\n    duplicates_within: 30m\n",
            "models:\n  customer_metrics:\n    materialized: upsert\n    key: [customer_id]\n",
            "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders')"
                + " WHERE customer_id IS NOT NULL GROUP BY customer_id");
    String plan = Plan.of(p, "customer_metrics").render();
    assertThat(
        plan,
        containsString(
            "     ↓\n"
                + "Duplicates\n"
                + "  event_id=order_id within=30m scope=source\n"
                + "  time attribute=ordered_at\n"
                + "  fingerprint=duplicates event_id=order_id scope=source"
                + " within=30m\n"
                + "     ↓\n"
                + "Filter\n"));
  }

  private static final String CLOCK = "    event_time: ordered_at\n    watermark: 5m\n";
  private static final String SQL =
      "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY customer_id";

  @Test
  void aTumblingWindowWithDefaultsShowsItsWindowTriggerAndGeneration() throws Exception {
    Project p =
        project(
            ORDERS + CLOCK,
            "models:\n  customer_metrics:\n    key: [customer_id]\n    window: 1h\n",
            SQL);
    String plan = Plan.of(p, "customer_metrics").render();
    assertThat(
        plan,
        containsString(
            "Aggregate\n"
                + "  key=customer_id\n"
                + "  aggregates=sum(amount)\n"
                + "  window=tumbling 1h (aligned to the epoch, UTC)\n"
                + "  allowed lateness=0s\n"
                + "  trigger=no early results; on time at the watermark; one revision per"
                + " correction; final at end + allowed lateness\n"
                + "  generation=1\n"
                + "  fingerprint=aggregate key=[customer_id] accumulators=[sum(amount):"
                + " decimal(38,2)] window=tumbling 1h allowed_lateness=0s trigger=early none\n"
                + "  materialized=upsert (revisions per key and window, accumulating: on_time,"
                + " corrected, final)\n"));
    assertThat(plan, not(containsString("retention")));
  }

  @Test
  void aCalendarWindowSaysWhatOneWindowSpans() throws Exception {
    for (String[] c :
        new String[][] {
          {"1d", "from local midnight to the next local midnight"},
          {"1w", "from local midnight on the week's first day to the same a week later"},
          {"1mo", "from local midnight on the 1st to local midnight on the next month's 1st"}
        }) {
      Project p =
          project(
              ORDERS + CLOCK,
              "models:\n  customer_metrics:\n    key: [customer_id]\n    window: "
                  + c[0]
                  + "\n    time_zone: Europe/Berlin\n",
              SQL);
      assertThat(
          Plan.of(p, "customer_metrics").render(),
          containsString(" (" + c[1] + "; docs/semantics.md §6.22)\n"));
    }
  }

  @Test
  void processingTimeEarlyResultsAreNamedInTheTrigger() throws Exception {
    Project p =
        project(
            ORDERS + CLOCK,
            "models:\n"
                + "  customer_metrics:\n"
                + "    key: [customer_id]\n"
                + "    window: {size: 1h, every: 30m}\n"
                + "    allowed_lateness: 5m\n"
                + "    early_results: every 30s\n",
            SQL);
    String plan = Plan.of(p, "customer_metrics").render();
    assertThat(plan, containsString("  window=hopping 1h every 30m (aligned to the epoch, UTC)\n"));
    assertThat(
        plan,
        containsString(
            "  trigger=early results every 30s of processing time; on time at"
                + " the watermark;"));
    assertThat(
        plan,
        containsString(
            " window=hopping 1h every 30m allowed_lateness=5m trigger=early every 30s\n"));
  }

  @Test
  void anUpsertModelShowsItsGenerationOnlyWhenNotOne() throws Exception {
    Project p =
        project(
            ORDERS + CLOCK,
            "models:\n  customer_metrics:\n    key: [customer_id]\n    generation: 4\n",
            SQL);
    String plan = Plan.of(p, "customer_metrics").render();
    assertThat(
        plan,
        containsString(
            "retention=unbounded\n"
                + "  materialized=upsert (insert/update changelog)\n"
                + "  generation=4\n"));
    assertThat(plan, not(containsString("window")));
  }

  @Test
  void processingTimeSourceHasNoTimeAttributeAndUnboundedRetention() throws Exception {
    Project p =
        project(
            ORDERS,
            "models:\n  customer_metrics:\n    materialized: upsert\n    key: [customer_id]\n",
            "SELECT customer_id, AVG(amount) AS avg_amount FROM source('orders') GROUP BY"
                + " customer_id");
    String plan = Plan.of(p, "customer_metrics").render();
    assertThat(plan, containsString("time=processing"));
    assertThat(plan, not(containsString("time attribute")));
    assertThat(
        plan, containsString("accumulators=[avg(amount): decimal(38,6)] retention=unbounded"));
  }
}
