package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import dev.streamform.teststreams.fixture.FixtureVerdict;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fixture-level semantics beyond the seed: partitions, processing time, SQL shapes. */
class FixtureSemanticsTest {
  @TempDir Path dir;

  private static final String SCHEMA =
      "    schema:\n"
          + "      customer_id: int64\n"
          + "      amount: decimal(12,2)\n"
          + "      ordered_at: timestamp\n";

  private Path project(String sourceExtra, String model, String sql) throws Exception {
    Path p = dir.resolve("p" + System.nanoTime());
    Files.createDirectories(p.resolve("models"));
    Files.writeString(
        p.resolve("sources.yml"),
        "sources:\n  orders:\n    connector: kafka\n    topic: orders\n" + SCHEMA + sourceExtra);
    Files.writeString(
        p.resolve("streamform.yml"),
        "models:\n  customer_metrics:\n    materialized: upsert\n    key: [customer_id]\n" + model);
    Files.writeString(p.resolve("models/customer_metrics.sql"), sql);
    return p;
  }

  private Path projectKeyedBy(String key, String sql) throws Exception {
    Path p = project("    event_time: ordered_at\n", "", sql);
    Files.writeString(
        p.resolve("streamform.yml"),
        "models:\n  customer_metrics:\n    materialized: upsert\n    key: [" + key + "]\n");
    return p;
  }

  private static FixtureVerdict run(Path project, String fixture) {
    FixtureProjects.write(project, "fixtures/f.yml", fixture);
    return StreamformFixtures.inProject(project).run("fixtures/f.yml");
  }

  private static final String SUM =
      "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY customer_id";

  @Test
  void lateIsJudgedAgainstTheEventsOwnPartition() throws Exception {
    Path p = project("    event_time: ordered_at\n    watermark: 5m\n", "", SUM);
    run(
            p,
            "model: customer_metrics\ngiven:\n"
                + "  - event: { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T12:00:00Z\" }\n"
                + "  - event: { customer_id: 2, amount: 1, ordered_at: \"2026-08-30T10:00:00Z\" }\n"
                + "    partition: 1\n"
                + "  - event: { customer_id: 2, amount: 1, ordered_at: \"2026-08-30T09:50:00Z\" }\n"
                + "    partition: 1\n"
                + "  - event: { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T11:00:00Z\" }\n"
                + "expect:\n"
                + "  - { op: insert, customer_id: 1, total_spend: 1 }\n"
                + "  - { op: insert, customer_id: 2, total_spend: 1 }\n"
                + "late:\n"
                + "  - { customer_id: 2, ordered_at: \"2026-08-30T09:50:00Z\" }\n"
                + "  - { customer_id: 1, ordered_at: \"2026-08-30T11:00:00Z\" }\n")
        .assertPassed();
  }

  @Test
  void aSourceWithoutEventTimeProcessesEverythingInArrivalOrder() throws Exception {
    Path p = project("", "", SUM);
    FixtureVerdict v =
        run(
            p,
            "model: customer_metrics\ngiven:\n"
                + "  - event: { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T12:00:00Z\" }\n"
                + "  - event: { customer_id: 1, amount: 2, ordered_at: \"2026-08-30T09:00:00Z\" }\n"
                + "  - event: { customer_id: 1, amount: 3 }\n"
                + "expect:\n"
                + "  - { op: insert, customer_id: 1, total_spend: 1 }\n"
                + "  - { op: update, customer_id: 1, total_spend: 3 }\n"
                + "  - { op: update, customer_id: 1, total_spend: 6 }\n");
    v.assertPassed();
    assertThat(v.render(), containsString("3 events processed\n3 changelog records emitted\n"));
  }

  @Test
  void whereCountAvgMinMaxRunThroughTheDeclaredModel() throws Exception {
    Path p =
        project(
            "    event_time: ordered_at\n",
            "    retention: 1h\n",
            "SELECT customer_id, COUNT(*) AS orders, MIN(amount) AS smallest, MAX(amount) AS"
                + " largest, AVG(amount) AS mean FROM source('orders') WHERE amount > 1 GROUP BY"
                + " customer_id");
    FixtureVerdict v =
        run(
            p,
            "model: customer_metrics\n"
                + "given:\n"
                + "  - event: { customer_id: 1, amount: 2.50, ordered_at: \"2026-08-30T10:00:00Z\""
                + " }\n"
                + "  - event: { customer_id: 1, amount: 0.50, ordered_at: \"2026-08-30T10:01:00Z\""
                + " }\n"
                + "  - event: { customer_id: 1, amount: 4, ordered_at: \"2026-08-30T10:02:00Z\" }\n"
                + "expect:\n"
                + "  - { op: insert, customer_id: 1, orders: 1, smallest: 2.5, largest: 2.5, mean:"
                + " 2.5 }\n"
                + "  - { op: update, customer_id: 1, orders: 2, smallest: 2.5, largest: 4, mean:"
                + " 3.25 }\n");
    v.assertPassed();
    // the event of amount 0.50 is filtered out, not processed: 2 + 1 = the 3 given, as run counts
    assertThat(
        v.render(),
        containsString(
            "2 events processed\n2 changelog records emitted\n1 event filtered out by WHERE\n"));
  }

  @Test
  void aFixtureForAnUnknownModelNamesTheModels() throws Exception {
    Path p = project("    event_time: ordered_at\n", "", SUM);
    FixtureProjects.write(p, "fixtures/f.yml", "model: customer_metric\ngiven: []\n");
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> StreamformFixtures.inProject(p).run("fixtures/f.yml"));
    assertThat(
        e.getMessage(),
        containsString(
            "fixtures/f.yml:1: key 'model': no model named 'customer_metric' in streamform.yml —"
                + " use one of: customer_metrics"));
    assertThat(Files.exists(p), is(true));
  }

  @Test
  void anAliasedKeyIsNamedAsTheQueryNamesIt() throws Exception {
    Path p =
        projectKeyedBy(
            "customer",
            "SELECT customer_id AS customer, SUM(amount) AS total_spend FROM source('orders')"
                + " GROUP BY customer_id");
    run(
            p,
            "model: customer_metrics\ngiven:\n"
                + "  - event: { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T10:00:00Z\" }\n"
                + "expect:\n"
                + "  - { op: insert, customer: 1, total_spend: 1 }\n")
        .assertPassed();
  }
}
