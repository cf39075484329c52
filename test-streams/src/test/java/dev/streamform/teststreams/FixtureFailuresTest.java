package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.KeyedChangelog;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each way a fixture can fail says what differed, where, and how to fix it (docs/semantics.md §4).
 */
class FixtureFailuresTest {
  private static final String HEAD = "model: customer_metrics\ngiven:\n";
  private static final String SEED_EVENTS =
      "  - event: { customer_id: 42, amount: 10, ordered_at: \"2026-08-30T10:00:00Z\" }\n"
          + "  - event: { customer_id: 42, amount: 20, ordered_at: \"2026-08-30T10:10:00Z\" }\n"
          + "  - event: { customer_id: 42, amount: 5,  ordered_at: \"2026-08-30T10:01:00Z\" }\n"
          + "  - event: { customer_id: 42, amount: 1,  ordered_at: \"2026-08-30T10:06:00Z\" }\n";
  private static final String SEED_EXPECT =
      "expect:\n"
          + "  - { op: insert, customer_id: 42, total_spend: 10 }\n"
          + "  - { op: update, customer_id: 42, total_spend: 30 }\n"
          + "  - { op: update, customer_id: 42, total_spend: 31 }\n";

  /** What the seed's events emit when nothing is dropped (the late event kept, or no clock). */
  private static final String KEPT_EXPECT =
      "expect:\n"
          + "  - { op: insert, customer_id: 42, total_spend: 10 }\n"
          + "  - { op: update, customer_id: 42, total_spend: 30 }\n"
          + "  - { op: update, customer_id: 42, total_spend: 35 }\n"
          + "  - { op: update, customer_id: 42, total_spend: 36 }\n";

  /** A `late:` listing the seed's third event, the one behind the watermark. */
  private static final String LATE_THIRD =
      "late:\n  - { customer_id: 42, amount: 5, ordered_at: \"2026-08-30T10:01:00Z\" }\n";

  @TempDir Path dir;

  private int runs;

  private FixtureVerdict run(String project, String fixture) {
    Path p = FixtureProjects.copy(project, dir.resolve("run" + ++runs));
    FixtureProjects.write(p, "fixtures/f.yml", fixture);
    return StreamformFixtures.inProject(p).run("fixtures/f.yml");
  }

  @Test
  void unacknowledgedLateEventFailsAndSaysHowToFixIt() {
    FixtureVerdict v = run("late-event", HEAD + SEED_EVENTS + SEED_EXPECT);
    assertThat(v.passed(), is(false));
    String report = v.render();
    assertThat(
        report,
        containsString(
            "FAIL\n3 events processed\n3 changelog records emitted\n1 late event dropped\n"));
    assertThat(report, containsString("late: listed  dropped"));
    assertThat(
        report,
        containsString(
            "1  (not listed)  amount=5 customer_id=42 ordered_at=\"2026-08-30T10:01:00Z\""));
    assertThat(
        report,
        containsString(
            "^ event 3 (line 5) was dropped as late but not acknowledged (its time is behind the"
                + " watermark \"2026-08-30T10:05:00Z\" of partition 0)"));
    assertThat(
        report,
        containsString("list it under `late:` or set `late_events: keep` on source 'orders'"));
  }

  @Test
  void listedLateEventThatWasDeliveredFails() {
    FixtureVerdict v =
        run(
            "late-event",
            HEAD
                + SEED_EVENTS
                + SEED_EXPECT
                + "late:\n"
                + "  - { customer_id: 42, amount: 5, ordered_at: \"2026-08-30T10:01:00Z\" }\n"
                + "  - { customer_id: 42, amount: 1, ordered_at: \"2026-08-30T10:06:00Z\" }\n");
    assertThat(v.passed(), is(false));
    String report = v.render();
    assertThat(
        report,
        containsString(
            "2  amount=1 customer_id=42 ordered_at=\"2026-08-30T10:06:00Z\"  (delivered)"));
    assertThat(
        report,
        containsString(
            "listed under `late:` (line 13) but event 4 (line 6) was delivered, not dropped: it"
                + " was on time (not behind W=\"2026-08-30T10:05:00Z\" of partition 0) — remove"
                + " it from `late:`"));
  }

  @Test
  void aLateRowThatMatchesNoGivenEventSaysSoInItsPlace() {
    // amount 7 at 10:02 is no event of given: (a typo, say): nothing was delivered for it either
    FixtureVerdict v =
        run(
            "late-event",
            HEAD
                + SEED_EVENTS
                + SEED_EXPECT
                + LATE_THIRD
                + "  - { customer_id: 42, amount: 7, ordered_at: \"2026-08-30T10:02:00Z\" }\n");
    assertThat(v.passed(), is(false));
    String report = v.render();
    assertThat(report, not(containsString("(delivered)")));
    assertThat(
        report,
        containsString(
            "2  amount=7 customer_id=42 ordered_at=\"2026-08-30T10:02:00Z\"  (matches no given"
                + " event)\n"));
    assertThat(
        report,
        containsString(
            "listed under `late:` (line 13) but no event of `given:` has these values, so nothing"
                + " like it was dropped — fix the row or remove it from `late:`"));
  }

  @Test
  void listedLateEventKeptByTheSourceSaysItWasLateButKept() {
    FixtureVerdict v = run("late-event-kept", HEAD + SEED_EVENTS + KEPT_EXPECT + LATE_THIRD);
    assertThat(v.passed(), is(false));
    String report = v.render();
    assertThat(report, not(containsString("on time")));
    assertThat(
        report,
        containsString(
            "listed under `late:` (line 13) but event 3 (line 5) was delivered, not dropped: it was"
                + " late (behind W=\"2026-08-30T10:05:00Z\" of partition 0) but kept, because"
                + " source 'orders' declares `late_events: keep`; kept late events are processed"
                + " and not listed under `late:` — remove it from `late:`"));
  }

  /**
   * A listed event that was quarantined is said to be quarantined, not late but kept by a {@code
   * late_events: keep} the source does not declare (fixture-harness review).
   */
  @Test
  void aListedLateEventThatWasQuarantinedSaysSo() {
    FixtureVerdict v =
        run(
            "late-event",
            HEAD
                + SEED_EVENTS.replace("customer_id: 42, amount: 5", "amount: 5")
                + SEED_EXPECT
                + "late:\n"
                + "  - { amount: 5, ordered_at: \"2026-08-30T10:01:00Z\" }\n"
                + "quarantined:\n"
                + "  - { amount: 5 }\n");
    assertThat(v.passed(), is(false));
    String report = v.render();
    assertThat(report, not(containsString("late_events: keep")));
    assertThat(
        report,
        containsString(
            "listed under `late:` (line 12) but event 3 (line 5) was not dropped as late: it was"
                + " quarantined: key column `customer_id` has no value"));
  }

  /**
   * The watermark a listed but delivered event is told it arrived at is the one the pipeline
   * reported, not one moved by an event quarantined before the clock (fixture-harness review).
   */
  @Test
  void aListedOnTimeEventIsToldTheWatermarkThePipelineReported() {
    FixtureVerdict v =
        run(
            "late-event",
            HEAD
                + "  - event: { customer_id: 42, amount: 10, ordered_at: \"2026-08-30T10:00:00Z\""
                + " }\n"
                + "  - event: { amount: 99, ordered_at: \"2026-08-30T10:30:00Z\" }\n"
                + "  - event: { customer_id: 42, amount: 5, ordered_at: \"2026-08-30T10:01:00Z\""
                + " }\n"
                + "expect:\n"
                + "  - { op: insert, customer_id: 42, total_spend: 10 }\n"
                + "  - { op: update, customer_id: 42, total_spend: 15 }\n"
                + "quarantined:\n"
                + "  - { amount: 99 }\n"
                + "late:\n"
                + "  - { customer_id: 42, amount: 5 }\n");
    assertThat(v.passed(), is(false));
    String report = v.render();
    assertThat(report, not(containsString("late_events: keep")));
    assertThat(
        report,
        containsString(
            "event 3 (line 5) was delivered, not dropped: it was on time (not behind"
                + " W=\"2026-08-30T09:55:00Z\" of partition 0) — remove it from `late:`"));
  }

  @Test
  void lateRowsOutOfDeliveryOrderSayTheOrder() {
    Path p = FixtureProjects.copy("watermark-items", dir);
    String text =
        FixtureProjects.read(
            FixtureProjects.TIME.resolve("watermark-items/fixtures/watermark_items.yml"));
    String first = "  - { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T10:15:00Z\" }\n";
    String second = "  - { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T10:19:00Z\" }\n";
    assertThat(text, containsString(first + second));
    FixtureProjects.write(
        p, "fixtures/watermark_items.yml", text.replace(first + second, second + first));
    FixtureVerdict v = StreamformFixtures.inProject(p).run("fixtures/watermark_items.yml");
    assertThat(v.passed(), is(false));
    String report = v.render();
    assertThat(report, not(containsString("on time")));
    assertThat(report, not(containsString("delivered, not dropped")));
    assertThat(
        report,
        containsString(
            "listed under `late:` (line 22) but not in this place: it was dropped as late, as"
                + " event 4 (line 10), and `late:` rows are compared in delivery order; the events"
                + " were dropped in this order: event 3 (line 8), event 4 (line 10), event 6"
                + " (line 12) — list them in that order"));
  }

  @Test
  void listedLateEventOfASourceWithoutEventTimeSaysNothingIsLate() {
    // a source without a clock has no late events: the fixture's late: is refused where it is
    // written (ADR 0091), through the Java API as through streamform test, rather than run and
    // failed with a message about a watermark the source does not have
    Path p = FixtureProjects.copy("late-event", dir);
    FixtureProjects.replace(
        p,
        "sources.yml",
        "    event_time: ordered_at   # a timestamp column of the schema\n"
            + "    watermark: 5m            # bounded out-of-orderness; default 0s\n"
            + "    late_events: drop        # drop (default) or keep\n",
        "");
    assertThat(FixtureProjects.read(p.resolve("sources.yml")), not(containsString("event_time")));
    FixtureProjects.write(p, "fixtures/f.yml", HEAD + SEED_EVENTS + KEPT_EXPECT + LATE_THIRD);
    IllegalArgumentException refused =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> StreamformFixtures.inProject(p).run("fixtures/f.yml"));
    assertThat(refused.getMessage(), not(containsString("on time")));
    assertThat(
        refused.getMessage(),
        containsString(
            "fixtures/f.yml:12: key 'late': source 'orders' declares no event_time, so no event is"
                + " ever late — remove late:"));
  }

  @Test
  void eventWithoutEventTimeIsNamed() {
    FixtureVerdict v =
        run(
            "late-event",
            HEAD
                + "  - event: { customer_id: 42, amount: 10, ordered_at: \"2026-08-30T10:00:00Z\""
                + " }\n"
                + "  - event: { customer_id: 42, amount: 20 }\n"
                + "expect:\n"
                + "  - { op: insert, customer_id: 42, total_spend: 10 }\n");
    assertThat(v.passed(), is(false));
    assertThat(v.render(), containsString("event 2 has no `ordered_at`"));
    assertThat(v.render(), containsString("1 event quarantined"));
    assertThat(v.render(), containsString("1 event processed"));
  }

  @Test
  void aListedQuarantineThatDidNotHappenCountsTheQuarantinedInWords() {
    String noTime = "  - event: { customer_id: 42, amount: 20 }\n";
    String listed = "expect: []\nquarantined:\n  - { customer_id: 7 }\n";
    String one = run("late-event", HEAD + noTime + listed).render();
    assertThat(one, not(containsString("(s)")));
    assertThat(
        one,
        containsString(
            "check its columns and `reason`; 1 event was: event 1 (line 3): no value for"
                + " event-time column `ordered_at`"));
    String two = run("late-event", HEAD + noTime + noTime + listed).render();
    assertThat(two, not(containsString("(s)")));
    assertThat(
        two, containsString("check its columns and `reason`; 2 events were: event 1 (line 3): "));
  }

  @Test
  void wrongExpectationShowsTheFirstDifference() {
    FixtureVerdict v =
        run(
            "late-event-kept",
            HEAD
                + SEED_EVENTS
                + SEED_EXPECT
                + "  - { op: update, customer_id: 42, total_spend: 36 }\n");
    assertThat(v.passed(), is(false));
    String report = v.render();
    assertThat(report, containsString("expect:"));
    assertThat(
        report,
        containsString(
            "3  update customer_id=42 total_spend=31  update customer_id=42 total_spend=35"));
    assertThat(
        report,
        containsString(
            "^ first difference (expect: line 10): emitted for event 3 (line 5): `total_spend` is"
                + " 35, expected 31"));
  }

  @Test
  void insertInsteadOfUpdateExplainsExpiry() {
    FixtureVerdict v =
        run(
            "retention",
            HEAD
                + "  - event: { customer_id: 42, amount: 10, ordered_at: \"2026-08-30T10:00:00Z\""
                + " }\n"
                + "  - watermark: \"2026-08-30T10:10:00Z\"\n"
                + "  - event: { customer_id: 42, amount: 5, ordered_at: \"2026-08-30T10:11:00Z\""
                + " }\n"
                + "expect:\n"
                + "  - { op: insert, customer_id: 42, total_spend: 10 }\n"
                + "  - { op: update, customer_id: 42, total_spend: 15 }\n");
    assertThat(v.passed(), is(false));
    assertThat(
        v.render(),
        containsString(
            "as an insert: the key had no state — it is new, or its state expired (retention)"));
    // the numbers that decided it (found by a read-only audit of the contract's boundaries: the
    // hint left the test writer to work out the edge)
    assertThat(
        v.render(),
        containsString(
            "(retention) (W_0 at its arrival, 2026-08-30T10:10:00Z, is 10m after the key's latest"
                + " event time before it, 2026-08-30T10:00:00Z: a key's state expires once that gap"
                + " reaches the model's retention)"));
  }

  @Test
  void retentionEdgeIsInclusiveAndOneMillisecondBeforeKeepsState() {
    String events =
        "  - event: { customer_id: 42, amount: 10, ordered_at: \"2026-08-30T10:00:00Z\" }\n"
            + "  - watermark: \"%s\"\n"
            + "  - event: { customer_id: 42, amount: 5, ordered_at: \"2026-08-30T10:11:00Z\" }\n";
    run(
            "retention",
            HEAD
                + String.format(events, "2026-08-30T10:09:59.999Z")
                + "expect:\n"
                + "  - { op: insert, customer_id: 42, total_spend: 10 }\n"
                + "  - { op: update, customer_id: 42, total_spend: 15 }\n")
        .assertPassed();
    run(
            "retention",
            HEAD
                + String.format(events, "2026-08-30T10:10:00Z")
                + "expect:\n"
                + "  - { op: insert, customer_id: 42, total_spend: 10 }\n"
                + "  - { op: insert, customer_id: 42, total_spend: 5 }\n")
        .assertPassed();
  }

  @Test
  void decimalsCompareByValueAndTimestampFormsAreEquivalent() {
    run(
            "late-event",
            HEAD
                + "  - event: { customer_id: 42, amount: 10.50, ordered_at: 1788084000000 }\n"
                + "  - event: { customer_id: 42, amount: 0.5, ordered_at:"
                + " \"2026-08-30T10:10:00.000Z\" }\n"
                + "expect:\n"
                + "  - { op: insert, customer_id: 42, total_spend: 10.5 }\n"
                + "  - { op: update, customer_id: 42, total_spend: 11.00 }\n")
        .assertPassed();
  }

  @Test
  void bareTimeOfDayIsRefusedWithTheLine() {
    Path p = FixtureProjects.copy("late-event", dir);
    FixtureProjects.write(
        p,
        "fixtures/f.yml",
        HEAD
            + "  - event: { customer_id: 42, amount: 10, ordered_at: \"10:00:00\" }\nexpect: []\n");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> StreamformFixtures.inProject(p).run("fixtures/f.yml"));
    assertThat(e.getMessage(), containsString("f.yml:3"));
    assertThat(e.getMessage(), containsString("'10:00:00' is a time of day without a date"));
  }

  @Test
  void unknownColumnsAndKeysAreProblemsWithLines() {
    Path p = FixtureProjects.copy("late-event", dir);
    FixtureProjects.write(
        p,
        "fixtures/f.yml",
        "model: customer_metrics\nexpected: []\ngiven:\n"
            + "  - event: { customer: 42, amount: 10, ordered_at: \"2026-08-30T10:00:00Z\" }\n");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> StreamformFixtures.inProject(p).run("fixtures/f.yml"));
    assertThat(
        e.getMessage(),
        containsString("f.yml:2: key 'expected': unknown key — did you mean 'expect'?"));
    assertThat(
        e.getMessage(),
        containsString(
            "f.yml:4: event 1, key 'customer': unknown key — did you mean 'customer_id'?"));
  }

  @Test
  void javaAuthorsRunAFixtureThroughTheirOwnTransform() {
    Path p = FixtureProjects.copy("late-event", dir);
    FixtureProjects.write(p, "fixtures/f.yml", HEAD + SEED_EVENTS + SEED_EXPECT + LATE_THIRD);
    StreamformFixtures fixtures = StreamformFixtures.inProject(p);
    fixtures
        .run(
            "fixtures/f.yml",
            KeyedChangelog.by("customer_id")
                .aggregating(Aggregation.sum("amount").as("total_spend")))
        .assertPassed();
    FixtureVerdict wrong =
        fixtures.run(
            "fixtures/f.yml",
            KeyedChangelog.by("customer_id")
                .aggregating(Aggregation.max("amount").as("total_spend")));
    assertThat(wrong.passed(), is(false));
    assertThat(wrong.render(), containsString("`total_spend` is 20, expected 30"));
  }

  /**
   * A difference that is only a character one cannot see (a no-break space for a space, a
   * zero-width space) names it and its place, as a did-you-mean does: the two values printed alike.
   */
  @Test
  void aDifferenceInAnInvisibleCharacterNamesIt() {
    Path p =
        FixtureProjects.copy(
            FixtureProjects.under("fixtures/duplicates/orders").toAbsolutePath(),
            dir.resolve("invisible"));
    FixtureProjects.write(
        p,
        "models/by_order.sql",
        "SELECT order_id, SUM(amount) AS total\nFROM source('orders')\nGROUP BY order_id\n");
    FixtureProjects.write(
        p,
        "streamform.yml",
        FixtureProjects.read(p.resolve("streamform.yml"))
            + "  by_order:\n    materialized: upsert\n    key: [order_id]\n");
    String event =
        "  - event: { order_id: \"%s\", customer_id: 1, amount: 10,"
            + " ordered_at: \"2026-08-30T10:00:00Z\" }\n";
    FixtureProjects.write(
        p,
        "fixtures/nbsp.yml",
        "model: by_order\ngiven:\n"
            + String.format(event, "1\\u00a0000")
            + "expect:\n  - { op: insert, order_id: \"1 000\", total: 10 }\n");
    FixtureProjects.write(
        p,
        "fixtures/zwsp.yml",
        "model: by_order\ngiven:\n"
            + String.format(event, "A-1")
            + "expect:\n  - { op: insert, order_id: \"A\\u200b-1\", total: 10 }\n");
    StreamformFixtures fixtures = StreamformFixtures.inProject(p);
    FixtureVerdict nbsp = fixtures.run("fixtures/nbsp.yml");
    assertThat(nbsp.passed(), is(false));
    assertThat(
        nbsp.render(),
        containsString(
            "`order_id` is \"1\u00a0000\" (it holds a no-break space (U+00A0) at character 2),"
                + " expected \"1 000\""));
    // the table shows the character it holds as an escape, the plain cell as it was
    assertThat(
        nbsp.render(),
        containsString(
            "insert order_id=\"1 000\" total=10  insert order_id=\"1\\u00A0000\" total=10\n"));
    FixtureVerdict zwsp = fixtures.run("fixtures/zwsp.yml");
    assertThat(zwsp.passed(), is(false));
    assertThat(
        zwsp.render(),
        containsString(
            "`order_id` is \"A-1\", expected \"A\u200b-1\" (it holds a zero-width space (U+200B)"
                + " at character 2)"));
    assertThat(
        zwsp.render(),
        containsString(
            "insert order_id=\"A\\u200B-1\" total=10  insert order_id=\"A-1\" total=10\n"));
  }

  @Test
  void suiteFailsWhenAFixtureFails() throws Exception {
    Path p = FixtureProjects.copy("late-event", dir);
    FixtureProjects.write(p, "fixtures/f.yml", HEAD + SEED_EVENTS + SEED_EXPECT);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    FixtureSuite suite =
        new FixtureSuite(
            FixtureRunner.on(RunnerChoice.direct()),
            new PrintWriter(bytes, true, StandardCharsets.UTF_8));
    assertThat(suite.run(p), is(false));
    assertThat(
        bytes.toString(StandardCharsets.UTF_8),
        containsString("1 fixture on direct: 0 passed, 1 failed"));
  }

  @Test
  void aModelWrittenOnlyInJavaNeedsNoSqlOrStreamformYml() throws Exception {
    Path p = dir.resolve("java-only");
    java.nio.file.Files.createDirectories(p);
    java.nio.file.Files.copy(
        FixtureProjects.TIME.resolve("late-event/sources.yml"), p.resolve("sources.yml"));
    FixtureProjects.write(
        p,
        "fixtures/f.yml",
        "model: spend_in_java\ngiven:\n"
            + SEED_EVENTS
            + "expect:\n"
            + "  - { op: insert, customer_id: 42, total: 10, orders: 1 }\n"
            + "  - { op: update, customer_id: 42, total: 30, orders: 2 }\n"
            + "  - { op: update, customer_id: 42, total: 31, orders: 3 }\n"
            + "late:\n  - { customer_id: 42, amount: 5 }\n");
    java.util.Map<String, dev.streamform.policies.schema.ColumnType> columns =
        new java.util.LinkedHashMap<>();
    columns.put("customer_id", dev.streamform.policies.schema.ColumnType.INT64);
    columns.put("total", dev.streamform.policies.schema.ColumnType.decimal(38, 2));
    columns.put("orders", dev.streamform.policies.schema.ColumnType.INT64);
    KeyedChangelog spend =
        KeyedChangelog.by("customer_id")
            .aggregating(
                Aggregation.sum("amount").as("total"), Aggregation.countAll().as("orders"));
    StreamformFixtures fixtures = StreamformFixtures.forSource(p, "orders");
    fixtures.run("fixtures/f.yml", columns, spend).assertPassed();
    FixtureVerdict wrong =
        fixtures.run(
            "fixtures/f.yml",
            columns,
            KeyedChangelog.by("customer_id")
                .aggregating(
                    Aggregation.max("amount").as("total"), Aggregation.countAll().as("orders")));
    assertThat(wrong.passed(), is(false));
    assertThat(wrong.render(), containsString("`total` is 20, expected 30"));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> StreamformFixtures.forSource(p, "payments"));
    assertThat(
        e.getMessage(), containsString("sources.yml has no source 'payments'; sources: orders"));
  }
}
