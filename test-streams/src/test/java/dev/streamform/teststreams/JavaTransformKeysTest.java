package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.policies.schema.ColumnType;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fixture run through a Java author's own transform quarantines an event without a value for the
 * transform's key columns, as the declared model does (docs/guides/fixtures.md, ADR 0088): the same
 * fixture passes both ways, and no record of a key made of nothing is emitted.
 */
class JavaTransformKeysTest {
  @TempDir Path dir;

  private static final String EVENTS =
      "model: customer_metrics\n"
          + "given:\n"
          + "  - event: { customer_id: 42, amount: 10, ordered_at: \"2026-08-30T10:00:00Z\" }\n"
          + "  - event: { amount: 7, ordered_at: \"2026-08-30T10:02:00Z\" }\n"
          + "  - event: { customer_id: 42, amount: 1, ordered_at: \"2026-08-30T10:03:00Z\" }\n";

  @Test
  void anEventWithoutItsKeyIsQuarantinedThroughAJavaChangelogAsThroughTheModel() {
    Path p = FixtureProjects.copy("late-event", dir);
    FixtureProjects.write(
        p,
        "fixtures/nokey.yml",
        EVENTS
            + "expect:\n"
            + "  - { op: insert, customer_id: 42, total_spend: 10 }\n"
            + "  - { op: update, customer_id: 42, total_spend: 11 }\n"
            + "quarantined:\n"
            + "  - { amount: 7, reason: \"key column `customer_id` has no value\" }\n");
    StreamformFixtures fixtures = StreamformFixtures.inProject(p);
    fixtures.run("fixtures/nokey.yml").assertPassed();
    FixtureVerdict java =
        fixtures.run(
            "fixtures/nokey.yml",
            KeyedChangelog.by("customer_id")
                .aggregating(Aggregation.sum("amount").as("total_spend")));
    assertThat(java.render(), not(containsString("customer_id=null")));
    java.assertPassed();
  }

  @Test
  void anEventWithoutItsKeyIsQuarantinedThroughAJavaWindowedAggregate() {
    Path p = FixtureProjects.copy("late-event", dir);
    FixtureProjects.write(
        p,
        "fixtures/nokey.yml",
        EVENTS
            + "expect:\n"
            + "  - { window_start: \"2026-08-30T10:00:00Z\", window_end: \"2026-08-30T11:00:00Z\","
            + " customer_id: 42, total_spend: 11, revision: 1, status: on_time }\n"
            + "  - { window_start: \"2026-08-30T10:00:00Z\", window_end: \"2026-08-30T11:00:00Z\","
            + " customer_id: 42, total_spend: 11, revision: 1, status: final }\n"
            + "quarantined:\n"
            + "  - { amount: 7, reason: \"key column `customer_id` has no value\" }\n");
    Map<String, ColumnType> columns = columns();
    FixtureVerdict java =
        StreamformFixtures.forSource(p, "orders")
            .run(
                "fixtures/nokey.yml",
                columns,
                WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
                    .forModel("customer_metrics")
                    .by("customer_id")
                    .aggregating(Aggregation.sum("amount").as("total_spend")));
    assertThat(java.render(), not(containsString("customer_id=null")));
    java.assertPassed();
  }

  /**
   * An output column the Java changelog does not produce is refused before anything runs, as the
   * windowed one is: it would be compared as null on every row.
   */
  @Test
  void anOutputColumnTheJavaChangelogDoesNotProduceIsRefused() {
    Path p = FixtureProjects.copy("late-event", dir);
    FixtureProjects.write(
        p,
        "fixtures/nokey.yml",
        EVENTS
            + "expect:\n"
            + "  - { op: insert, customer_id: 42, total_spend: 10 }\n"
            + "  - { op: update, customer_id: 42, total_spend: 11 }\n");
    KeyedChangelog total =
        KeyedChangelog.by("customer_id").aggregating(Aggregation.sum("amount").as("total"));
    StreamformFixtures fixtures = StreamformFixtures.inProject(p);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> fixtures.run("fixtures/nokey.yml", total));
    assertThat(
        e.getMessage(),
        is(
            "StreamformFixtures.run: the output columns name 'total_spend', which the"
                + " KeyedChangelog does not produce (its columns: customer_id, total): add its"
                + " aggregate to .aggregating(..), e.g. Aggregation.countAll().as(\"total_spend\")"
                + " or Aggregation.sum(\"<column>\").as(\"total_spend\"), or leave 'total_spend'"
                + " out of the output columns"));
    Map<String, ColumnType> columns = columns();
    assertThrows(
        IllegalArgumentException.class,
        () -> StreamformFixtures.forSource(p, "orders").run("fixtures/nokey.yml", columns, total));
    IllegalArgumentException none =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                StreamformFixtures.forSource(p, "orders")
                    .run("fixtures/nokey.yml", columns, (KeyedChangelog) null));
    assertThat(
        none.getMessage(),
        is("StreamformFixtures.run: pass the output columns and the transform, neither null"));
    StreamformFixtures orders = StreamformFixtures.forSource(p, "orders");
    assertThat(
        assertThrows(
                IllegalArgumentException.class,
                () -> orders.run("fixtures/nokey.yml", columns, (WindowedAggregate) null))
            .getMessage(),
        is(
            "StreamformFixtures.run: pass the output columns and the WindowedAggregate, neither"
                + " null"));
    assertThat(
        assertThrows(
                IllegalArgumentException.class,
                () -> orders.runPipeline("fixtures/nokey.yml", columns, null))
            .getMessage(),
        is(
            "StreamformFixtures.runPipeline: pass the output columns and the pipeline, neither"
                + " null"));
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> fixtures.run((String) null))
            .getMessage(),
        is(
            "StreamformFixtures.run: name the fixture file, relative to the folder, e.g."
                + " \"fixtures/late_event.yml\""));
  }

  /** The customer_metrics changelog's columns, as a Java author passes them. */
  private static Map<String, ColumnType> columns() {
    Map<String, ColumnType> columns = new LinkedHashMap<>();
    columns.put("customer_id", ColumnType.INT64);
    columns.put("total_spend", ColumnType.decimal(38, 2));
    return columns;
  }
}
