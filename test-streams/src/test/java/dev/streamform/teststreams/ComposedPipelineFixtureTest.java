package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import dev.streamform.policies.schema.ColumnType;
import dev.streamform.teststreams.fixture.ComposedResult;
import dev.streamform.teststreams.fixture.Delivery;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.extraction.ExtractionResult;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fixture run against a pipeline its author composed: their own extraction and clock, and steps
 * after the changelog (here a Filter that keeps one customer and a MapElements that turns the total
 * into cents). The fixture hands the pipeline the source's records and matches what it returns,
 * with the same report as {@code streamform test}.
 */
class ComposedPipelineFixtureTest {
  @TempDir Path dir;

  /** The seed's late-event log with another customer in it; expectations worked out by hand. */
  private static final String EVENTS =
      "given:\n"
          + "  - event: { customer_id: 42, amount: 10, ordered_at: \"2026-08-30T10:00:00Z\" }\n"
          + "  - event: { customer_id: 7,  amount: 3,  ordered_at: \"2026-08-30T10:02:00Z\" }\n"
          + "  - event: { customer_id: 42, amount: 20, ordered_at: \"2026-08-30T10:10:00Z\" }\n"
          + "  - event: { customer_id: 42, amount: 5,  ordered_at: \"2026-08-30T10:01:00Z\" }\n"
          + "  - event: { customer_id: 42, amount: 1,  ordered_at: \"2026-08-30T10:06:00Z\" }\n";

  /** Customer 42 only, its running total in cents; 10:01 is behind W = 10:05 and dropped. */
  private static final String FIXTURE =
      "model: customer_42_in_cents\n"
          + EVENTS
          + "expect:\n"
          + "  - { op: insert, customer_id: 42, total_cents: 1000 }\n"
          + "  - { op: update, customer_id: 42, total_cents: 3000 }\n"
          + "  - { op: update, customer_id: 42, total_cents: 3100 }\n"
          + "late:\n"
          + "  - { customer_id: 42, amount: 5, ordered_at: \"2026-08-30T10:01:00Z\" }\n";

  private static Map<String, ColumnType> columns() {
    Map<String, ColumnType> columns = new LinkedHashMap<>();
    columns.put("customer_id", ColumnType.INT64);
    columns.put("total_cents", ColumnType.decimal(38, 2));
    return columns;
  }

  /**
   * The author's pipeline: extraction, a 5m clock, the changelog, then a Filter and a MapElements.
   */
  private static Function<PCollection<SourceRecord>, ComposedResult> customer42InCents(
      long centsPerUnit) {
    return records -> {
      ExtractionResult extracted = records.apply(EventTimeExtraction.from("ordered_at"));
      ClockResult clocked =
          extracted
              .events()
              .apply(
                  SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                      .withContiguousOffsets());
      PCollection<ChangelogRecord> changes =
          clocked
              .events()
              .apply(
                  KeyedChangelog.by("customer_id")
                      .aggregating(Aggregation.sum("amount").as("total_cents")));
      PCollection<ChangelogRecord> inCents =
          changes
              .apply(Filter.by((ChangelogRecord r) -> r.key().getInt64("customer_id") == 42L))
              .apply(
                  MapElements.into(TypeDescriptor.of(ChangelogRecord.class))
                      .via(
                          (ChangelogRecord r) ->
                              ChangelogRecord.of(
                                  r.op(),
                                  r.key(),
                                  Row.withSchema(r.values().getSchema())
                                      .addValue(
                                          r.values()
                                              .getDecimal("total_cents")
                                              .multiply(BigDecimal.valueOf(centsPerUnit)))
                                      .build(),
                                  r.eventId(),
                                  r.partition(),
                                  r.offset(),
                                  r.eventTime())))
              .setCoder(changes.getCoder());
      return ComposedResult.of(inCents, clocked.late()).withQuarantined(extracted.quarantined());
    };
  }

  private StreamformFixtures project(String fixture) throws Exception {
    Path p = dir.resolve("composed");
    Files.createDirectories(p);
    Files.copy(FixtureProjects.TIME.resolve("late-event/sources.yml"), p.resolve("sources.yml"));
    FixtureProjects.write(p, "fixtures/f.yml", fixture);
    return StreamformFixtures.forSource(p, "orders");
  }

  @Test
  void aFixturePassesThroughAPipelineWithStepsAfterTheChangelog() throws Exception {
    StreamformFixtures fixtures = project(FIXTURE);
    FixtureVerdict verdict =
        fixtures.runPipeline("fixtures/f.yml", columns(), customer42InCents(100));
    verdict.assertPassed();
    // counted without the pipeline's own count: five events, one dropped as late
    assertThat(
        verdict.render(),
        allOf(
            containsString("customer_42_in_cents"),
            containsString("PASS"),
            containsString("4 events processed"),
            containsString("3 changelog records emitted"),
            containsString("1 late event dropped")));
    // fed as an author's bounded source would feed it, the same verdict
    fixtures
        .delivering(Delivery.createOf())
        .runPipeline("fixtures/f.yml", columns(), customer42InCents(100))
        .assertPassed();
  }

  @Test
  void aFixtureThatDoesNotHoldReportsTheDifference() throws Exception {
    FixtureVerdict wrong =
        project(FIXTURE)
            .runPipeline(
                "fixtures/f.yml", columns(), customer42InCents(10)); // a slip: 10 cents a unit
    assertThat(wrong.passed(), is(false));
    assertThat(
        wrong.render(),
        allOf(
            containsString("FAIL"),
            containsString("changelog:"),
            containsString("^ first difference (expect: line"),
            containsString("`total_cents` is 100, expected 1000")));
  }

  @Test
  void aQuarantinedEventIsNamedWhenThePipelineHandsOverItsQuarantine() throws Exception {
    FixtureVerdict verdict =
        project(
                "model: customer_42_in_cents\n"
                    + "given:\n"
                    + "  - event: { customer_id: 42, amount: 10, ordered_at:"
                    + " \"2026-08-30T10:00:00Z\" }\n"
                    + "  - event: { customer_id: 42, amount: 20 }\n"
                    + "expect:\n"
                    + "  - { op: insert, customer_id: 42, total_cents: 1000 }\n")
            .runPipeline("fixtures/f.yml", columns(), customer42InCents(100));
    assertThat(verdict.passed(), is(false));
    assertThat(
        verdict.render(),
        allOf(
            containsString("1 event processed"),
            containsString("1 event quarantined"),
            containsString("event 2 has no `ordered_at`")));
  }
}
