package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.decisions.FeatureContract;
import dev.streamform.transforms.decisions.LateAction;
import dev.streamform.transforms.decisions.ScoreEvents;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.windowing.CalendarWindows;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.Row;
import org.joda.time.DateTimeConstants;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Mistakes in building a transform fail at once, where the author wrote them, with a message that
 * names the transform and says what to write instead — never a bare NullPointerException, never a
 * silent reinterpretation (sum(null) used to become sum(*)).
 */
class ValidationTest {

  private static String refused(Executable construction) {
    return assertThrows(IllegalArgumentException.class, construction).getMessage();
  }

  @Test
  void keyColumnsAreRequiredNamedAndDistinct() {
    assertThat(
        refused(() -> KeyedChangelog.by((String) null)),
        allOf(
            containsString("KeyedChangelog.by(null)"),
            containsString("a key column is null"),
            containsString("KeyedChangelog.by(\"customer_id\")")));
    assertThat(
        refused(() -> KeyedChangelog.by((String[]) null)),
        allOf(
            containsString("KeyedChangelog.by(null)"), containsString("at least one key column")));
    assertThat(
        refused(() -> KeyedChangelog.by((List<String>) null)),
        containsString("at least one key column"));
    assertThat(refused(() -> KeyedChangelog.by()), containsString("at least one key column"));
    assertThat(
        refused(() -> KeyedChangelog.by("customer_id", " ")),
        allOf(
            containsString("KeyedChangelog.by(\"customer_id\", \" \")"), containsString("blank")));
    assertThat(
        refused(() -> KeyedChangelog.by(Arrays.asList("customer_id", null))),
        containsString("a key column is null"));
    assertThat(
        refused(() -> KeyedChangelog.by("customer_id", "customer_id")),
        containsString("key column `customer_id` is named twice"));
  }

  @Test
  void everyAggregateOfAColumnNeedsTheColumn() {
    List<Function<String, Aggregation>> factories =
        List.of(
            Aggregation::sum,
            Aggregation::count,
            Aggregation::min,
            Aggregation::max,
            Aggregation::avg);
    List<String> names = List.of("sum", "count", "min", "max", "avg");
    for (int i = 0; i < factories.size(); i++) {
      Function<String, Aggregation> factory = factories.get(i);
      String name = names.get(i);
      assertThat(
          refused(() -> factory.apply(null)),
          allOf(
              containsString("Aggregation." + name + "(null)"),
              containsString("Aggregation." + name + "(\"amount\")")));
      assertThat(
          refused(() -> factory.apply("  ")), containsString("Aggregation." + name + "(\"  \")"));
    }
    assertThat(refused(() -> Aggregation.count(null)), containsString("Aggregation.countAll()"));
    assertThat(
        refused(() -> Aggregation.of(Aggregation.Function.SUM, null)),
        containsString("Aggregation.sum(null)"));
    assertThat(
        refused(() -> Aggregation.of(null, "amount")), containsString("the function is required"));
    // COUNT(*) is the one aggregate without a column
    assertNull(Aggregation.of(Aggregation.Function.COUNT, null).column());
    assertEquals("count(*) as n", Aggregation.countAll().as("n").toString());
  }

  @Test
  void anAggregateNeedsANameOfItsOwn() {
    assertThat(
        refused(() -> Aggregation.sum("amount").as(null)),
        allOf(
            containsString("Aggregation.sum(amount).as(null)"),
            containsString(".as(\"total_spend\")")));
    assertThat(refused(() -> Aggregation.sum("amount").as("")), containsString(".as(\"\")"));

    KeyedChangelog byCustomer = KeyedChangelog.by("customer_id");
    assertThat(
        refused(
            () ->
                byCustomer.aggregating(
                    Aggregation.sum("amount").as("total"), Aggregation.max("amount").as("total"))),
        allOf(
            containsString("KeyedChangelog.by(\"customer_id\").aggregating"),
            containsString(
                "two aggregates are named `total` (sum(amount) as total, max(amount) as total)"),
            containsString(".as(...)")));
    // across calls, and by their default names
    assertThat(
        refused(
            () ->
                byCustomer
                    .aggregating(Aggregation.sum("amount").as("total"))
                    .aggregating(Aggregation.count("amount").as("total"))),
        containsString("two aggregates are named `total`"));
    assertThat(
        refused(() -> byCustomer.aggregating(Aggregation.sum("amount"), Aggregation.sum("amount"))),
        containsString("two aggregates are named `sum_amount`"));
    assertThat(
        refused(() -> byCustomer.aggregating(Aggregation.max("amount").as("customer_id"))),
        allOf(
            containsString(
                "aggregate max(amount) as customer_id is named like the key column"
                    + " `customer_id`"),
            containsString(".as(...)")));
    assertThat(
        refused(() -> byCustomer.aggregating((Aggregation) null)),
        containsString("an aggregate is null"));
    assertThat(
        refused(() -> byCustomer.aggregating((List<Aggregation>) null)),
        containsString(".aggregating(null)"));
  }

  @Test
  void retentionIsPositive() {
    KeyedChangelog byCustomer = KeyedChangelog.by("customer_id");
    assertThat(
        refused(() -> byCustomer.withRetention(null)),
        allOf(
            containsString("KeyedChangelog.by(\"customer_id\").withRetention(null)"),
            containsString("positive")));
    assertThat(refused(() -> byCustomer.withRetention(Duration.ZERO)), containsString("positive"));
    assertThat(
        refused(() -> byCustomer.withRecordSchema(null)), containsString("withRecordSchema(null)"));
  }

  @Test
  void theClockNamesWhatItNeeds() {
    assertThat(
        refused(() -> SourceClock.forBoundedOutOfOrderness(null)),
        allOf(
            containsString("SourceClock.forBoundedOutOfOrderness(null)"),
            containsString("Duration.standardMinutes(5)"),
            containsString("Duration.ZERO")));
    assertThat(
        refused(() -> SourceClock.forBoundedOutOfOrderness(Duration.millis(-1))),
        containsString("must not be negative"));
    SourceClock clock = SourceClock.forBoundedOutOfOrderness(Duration.ZERO);
    assertThat(
        refused(() -> clock.withLateEvents(null)),
        containsString("SourceClock.withLateEvents(null)"));
    assertThat(
        refused(() -> clock.withIdleness(null)), containsString("SourceClock.withIdleness(null)"));
    assertThat(
        refused(() -> clock.withPartitions((List<Integer>) null)),
        containsString("SourceClock.withPartitions(null)"));
    assertThat(refused(() -> clock.withPartitions(0, -1)), containsString("each 0 or more"));
    assertThat(
        refused(() -> clock.withContiguousOffsets(null)),
        containsString("SourceClock.withContiguousOffsets(null)"));
    assertThat(
        refused(() -> EventTimeExtraction.from(" ")),
        allOf(
            containsString("EventTimeExtraction.from(\" \")"),
            containsString("from(\"ordered_at\")")));
    assertThat(
        refused(() -> EventTimeExtraction.from(null)),
        containsString("EventTimeExtraction.from(null)"));
  }

  /**
   * A windowed aggregate checks its key columns and aggregates when built, as the changelog does: a
   * null, blank or repeated key column, a null aggregate, two aggregates with one output name and
   * an aggregate named like a key column (or like window_start / window_end) — not a bare
   * NullPointerException, nor Beam's "Duplicate field s added to schema" when the pipeline runs.
   */
  @Test
  void aWindowedAggregateChecksKeysAndAggregatesWhenBuilt() {
    WindowedAggregate hourly = WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)));
    assertThat(
        refused(() -> hourly.by((String) null)),
        allOf(
            containsString("WindowedAggregate.by(null)"),
            containsString("a key column is null"),
            containsString(".by(\"customer_id\")")));
    assertThat(refused(() -> hourly.by()), containsString("at least one key column"));
    assertThat(
        refused(() -> hourly.by((List<String>) null)), containsString("at least one key column"));
    assertThat(
        refused(() -> hourly.by("customer_id", "customer_id")),
        allOf(
            containsString("WindowedAggregate.by(\"customer_id\", \"customer_id\")"),
            containsString("key column `customer_id` is named twice; name each key column once")));
    WindowedAggregate byCustomer = hourly.by("customer_id");
    assertThat(
        refused(() -> byCustomer.aggregating((Aggregation) null)),
        allOf(
            containsString("WindowedAggregate.by(\"customer_id\").aggregating"),
            containsString("an aggregate is null")));
    assertThat(
        refused(() -> byCustomer.aggregating((List<Aggregation>) null)),
        containsString(".aggregating(null)"));
    assertThat(
        refused(
            () ->
                byCustomer.aggregating(
                    Aggregation.sum("amount").as("s"), Aggregation.max("amount").as("s"))),
        allOf(
            containsString("WindowedAggregate.by(\"customer_id\").aggregating"),
            containsString("two aggregates are named `s` (sum(amount) as s, max(amount) as s)"),
            containsString("rename one with .as(...)")));
    assertThat(
        refused(
            () ->
                byCustomer
                    .aggregating(Aggregation.sum("amount"))
                    .aggregating(Aggregation.sum("amount"))),
        containsString("two aggregates are named `sum_amount`"));
    assertThat(
        refused(() -> byCustomer.aggregating(Aggregation.countAll().as("window_end"))),
        allOf(containsString("window_end"), containsString(".as(...)")));
    // an aggregate named like a key is refused when applied, once withKeyName cannot rename the key
    Schema orders =
        Schema.builder()
            .addInt64Field("customer_id")
            .addDecimalField("amount")
            .addDateTimeField("ordered_at")
            .build();
    WindowedAggregate likeKey = byCustomer.aggregating(Aggregation.sum("amount").as("customer_id"));
    assertThat(
        refused(() -> clockedEvents(orders).apply(likeKey)),
        allOf(
            containsString(
                "WindowedAggregate.by(\"customer_id\"): aggregate `customer_id` is named"
                    + " like a key column"),
            containsString(".as(...)")));
    clockedEvents(orders).apply(likeKey.withKeyName("customer_id", "customer"));
  }

  /** An empty input with the clock's coder for records of {@code schema}. */
  private static org.apache.beam.sdk.values.PCollection<dev.streamform.transforms.clock.TimedEvent>
      clockedEvents(Schema schema) {
    return org.apache.beam.sdk.Pipeline.create()
        .apply(
            org.apache.beam.sdk.transforms.Create.empty(
                dev.streamform.transforms.clock.ClockCoders.TimedEventCoder.of(
                    dev.streamform.transforms.envelope.EnvelopeCoder.of(schema))));
  }

  /** The partitions a clock reads are each named once, and at least one is named. */
  @Test
  void theClocksPartitionsAreNamedOnceEach() {
    SourceClock clock = SourceClock.forBoundedOutOfOrderness(Duration.ZERO);
    assertThat(
        refused(() -> clock.withPartitions(0, 0)),
        allOf(
            containsString("SourceClock.withPartitions([0, 0])"),
            containsString("partition 0 is named twice")));
    // none declared, as a fixture without events declares them: partitions taken as they arrive
    assertThat(clock.withPartitions().partitions(), equalTo(clock.partitions()));
    assertThat(
        refused(() -> clock.withPartitions((Integer) null)), containsString("each 0 or more"));
  }

  /**
   * SEMANTICS §1: a source without event time has no late events and no idleness; the clock of one
   * refuses them when built, naming the fix, rather than show {@code idleAfter=1m} and ignore it.
   */
  @Test
  void anArrivalOrderClockRefusesLateEventsAndIdleness() {
    SourceClock arrival = SourceClock.inArrivalOrder();
    assertThat(
        refused(arrival::keepingLateEvents),
        allOf(
            containsString("SourceClock.inArrivalOrder().keepingLateEvents()"),
            containsString("no event time"),
            containsString("SourceClock.forBoundedOutOfOrderness(")));
    assertThat(
        refused(arrival::droppingLateEvents),
        containsString("SourceClock.inArrivalOrder().droppingLateEvents()"));
    assertThat(
        refused(() -> arrival.withLateEvents(dev.streamform.core.time.LateEvents.KEEP)),
        containsString("SourceClock.inArrivalOrder().withLateEvents(KEEP)"));
    assertThat(
        refused(() -> arrival.withIdleness(Duration.standardMinutes(1))),
        allOf(
            containsString("SourceClock.inArrivalOrder().withIdleness(1m)"),
            containsString("no event time")));
    // the options that mean something without event time stay
    arrival.withContiguousOffsets().withPartitions(0, 1).withGeneration(2);
  }

  /** A log item's parts and the records' coder's schema are named when missing. */
  @Test
  void aSourceRecordNamesWhatIsMissing() {
    Row row = Row.nullRow(Schema.builder().addNullableField("a", Schema.FieldType.STRING).build());
    assertThat(
        refused(() -> SourceRecord.of(0, 3, null, row)),
        allOf(
            containsString("SourceRecord.of: the ingest time at partition 0 offset 3 is null"),
            containsString("Instant.now()")));
    assertThat(
        refused(() -> SourceRecord.punctuation(0, 3, Instant.EPOCH, null)),
        containsString("SourceRecord.punctuation: the watermark at partition 0 offset 3 is null"));
    assertThat(
        refused(() -> SourceRecord.punctuation(0, 3, null, Instant.EPOCH)),
        containsString("the ingest time at partition 0 offset 3 is null"));
    assertThat(
        refused(() -> SourceRecordCoder.of(null)),
        allOf(
            containsString("SourceRecordCoder.of(null)"),
            containsString("the schema of the records")));
  }

  /** A calendar size other than one day, week or month names the call as the author wrote it. */
  @Test
  void calendarWindowsOfMoreThanOneUnitAreNamedAsWritten() {
    assertThat(
        refused(() -> WindowedAggregate.of(CalendarWindows.weeks(2, DateTimeConstants.MONDAY))),
        allOf(
            containsString("CalendarWindows.weeks(2, MONDAY) is 2 weeks"),
            containsString("use CalendarWindows.weeks(1, MONDAY)")));
    assertThat(
        refused(() -> WindowedAggregate.of(CalendarWindows.days(3))),
        allOf(
            containsString("CalendarWindows.days(3) is 3 days"),
            containsString("use CalendarWindows.days(1)")));
    // Beam's weeks(2, THURSDAY) and days(14) are the same windows: both are named
    assertThat(
        refused(() -> WindowedAggregate.of(CalendarWindows.days(14))),
        containsString("CalendarWindows.days(14) (or weeks(2, THURSDAY)) is 2 weeks"));
  }

  /**
   * ScoreEvents names a null or empty argument and the fix, never AutoValue's "Null lateAction".
   */
  @Test
  void scoreEventsNamesAMissingArgumentAndTheFix() {
    ScoreEvents scoring = ScoreEvents.forModel("m").by("merchant_id");
    assertThat(
        refused(() -> scoring.onLateEvents(null)),
        allOf(
            containsString("ScoreEvents.onLateEvents(null)"),
            containsString("LateAction.IGNORE, LateAction.REVISE or LateAction.RECONCILE")));
    assertThat(
        refused(() -> scoring.withContract(null)),
        allOf(
            containsString("ScoreEvents.withContract(null)"),
            containsString("FeatureContract.AS_OF_OCCURRENCE")));
    assertThat(
        refused(() -> scoring.withFeatures()),
        allOf(
            containsString("ScoreEvents.withFeatures() names no feature"),
            containsString("withFeatures(Aggregation.sum(\"amount\").as(\"spend_1h\"))")));
    assertThat(
        refused(() -> scoring.withFeatures(Aggregation.sum("amount").as("spend_1h"), null)),
        containsString("ScoreEvents.withFeatures: feature 2 is null"));
    assertEquals(LateAction.REVISE, scoring.onLateEvents(LateAction.REVISE).lateAction());
    assertEquals(
        FeatureContract.LATEST_AVAILABLE,
        scoring.withContract(FeatureContract.LATEST_AVAILABLE).contract());
  }

  @Test
  void aKeyNameNamesAKeyColumnAndANameInEitherOrder() {
    WindowedAggregate hourly = WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)));
    assertThat(
        refused(() -> hourly.withKeyName("store_id", null)),
        equalTo(
            "WindowedAggregate.withKeyName(\"store_id\", null): give a key column and the name"
                + " it takes in the output, e.g. withKeyName(\"store_id\", \"store\")"));
    assertThat(
        refused(() -> hourly.withKeyName(" ", "store")),
        containsString("WindowedAggregate.withKeyName(\" \", \"store\"): give a key column"));
    assertThat(
        refused(() -> hourly.by("store_id").withKeyName("zz", "c")),
        equalTo(
            "WindowedAggregate.withKeyName(\"zz\", \"c\"): `zz` is not one of its key columns"
                + " (store_id); name one of them, or give the key with .by(..) first"));
    assertThat(
        refused(() -> hourly.withKeyName("zz", "c").by("store_id")),
        equalTo(
            "WindowedAggregate.by([store_id]): withKeyName(\"zz\", \"c\") names `zz`, which is not"
                + " one of these key columns; key by it too, or leave its withKeyName out"));
    assertEquals(
        "store", hourly.by("store_id").withKeyName("store_id", "store").keyNames().get("store_id"));
    assertEquals(
        "store", hourly.withKeyName("store_id", "store").by("store_id").keyNames().get("store_id"));
  }
}
