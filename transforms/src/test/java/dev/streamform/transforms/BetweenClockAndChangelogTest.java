package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Steps an author puts between the clock and the changelog: one that keeps the clock's coder is
 * fine; a {@code MapElements} infers a coder of its own, and then either the changelog is told the
 * records' schema ({@code withRecordSchema}) or it refuses at construction, saying which {@code
 * setCoder(...)} to add.
 */
class BetweenClockAndChangelogTest {

  private static ClockResult clocked(Pipeline p, String name, List<SourceRecord> records) {
    return p.apply(
            name + "/Create",
            Create.of(records).withCoder(SourceRecordCoder.of(SeedStreams.ORDERS)))
        .apply(name + "/Extract", EventTimeExtraction.from("ordered_at"))
        .events()
        .apply(name + "/Clock", HandOverTest.clock());
  }

  /** A step with a coder of its own: what MapElements infers for a Serializable type. */
  private static PCollection<TimedEvent> mapped(PCollection<TimedEvent> events, String name) {
    return events.apply(
        name, MapElements.into(TypeDescriptor.of(TimedEvent.class)).via((TimedEvent e) -> e));
  }

  private static void assertSeedChangelog(String name, PCollection<ChangelogRecord> changes) {
    PAssert.that(
            name + "/Is",
            changes.apply(
                name + "/Lines",
                MapElements.into(TypeDescriptors.strings()).via(Scenario::changelogLine)))
        .containsInAnyOrder(HandOverTest.CHANGELOG);
  }

  @Test
  void aMapElementsWithItsOwnCoderIsRefusedWithTheSetCoderToAdd() {
    Pipeline p = SeedStreams.pipeline();
    PCollection<TimedEvent> events =
        mapped(clocked(p, "seed", HandOverTest.SEED.items()).events(), "Map");
    assertThat(events.getCoder(), instanceOf(SerializableCoder.class));
    String message =
        assertThrows(IllegalArgumentException.class, () -> events.apply(HandOverTest.model()))
            .getMessage();
    assertThat(
        message,
        allOf(
            containsString("KeyedChangelog.by(\"customer_id\")"),
            containsString("SerializableCoder"),
            containsString(".setCoder(clocked.events().getCoder())"),
            containsString("KeyedChangelog.by(\"customer_id\").withRecordSchema(schema)")));
  }

  @Test
  void withRecordSchemaTheChangelogTakesAnyCoderAndStillAppliesInLogOrder() {
    Pipeline p = SeedStreams.pipeline();
    Random random = new Random(7);
    for (int branch = 0; branch < 4; branch++) {
      List<SourceRecord> records = new ArrayList<>(HandOverTest.SEED.items());
      Collections.shuffle(records, random);
      String name = "branch" + branch;
      PCollection<TimedEvent> events = mapped(clocked(p, name, records).events(), name + "/Map");
      assertSeedChangelog(
          name,
          events.apply(
              name + "/Changelog", HandOverTest.model().withRecordSchema(SeedStreams.ORDERS)));
    }
    p.run().waitUntilFinish();
  }

  @Test
  void stepsThatKeepTheClocksCoderNeedNothing() {
    Pipeline p = SeedStreams.pipeline();
    ClockResult clocked = clocked(p, "seed", HandOverTest.SEED.items());
    PCollection<TimedEvent> kept =
        clocked
            .events()
            .apply(
                "Map",
                MapElements.into(TypeDescriptor.of(TimedEvent.class)).via((TimedEvent e) -> e))
            .setCoder(clocked.events().getCoder())
            .apply("Filter", Filter.by((TimedEvent e) -> e.envelope().record() != null));
    assertThat(kept.getCoder(), not(instanceOf(SerializableCoder.class)));
    assertSeedChangelog("kept", kept.apply("Changelog", HandOverTest.model()));
    p.run().waitUntilFinish();
  }

  @Test
  void aRecordSchemaThatIsNotTheClocksIsRefused() {
    Pipeline p = SeedStreams.pipeline();
    PCollection<TimedEvent> events = clocked(p, "seed", HandOverTest.SEED.items()).events();
    Schema other = Schema.builder().addInt64Field("customer_id").build();
    assertThat(
        assertThrows(
                IllegalArgumentException.class,
                () -> events.apply(HandOverTest.model().withRecordSchema(other)))
            .getMessage(),
        allOf(
            containsString("withRecordSchema([customer_id])"),
            containsString("another schema, [customer_id, amount, ordered_at]")));
  }

  private static WindowedAggregate hourly() {
    return WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
        .forModel("hourly")
        .by("customer_id")
        .aggregating(Aggregation.sum("amount").as("revenue"));
  }

  /**
   * The windows read the clock's events as the changelog does: a step that set a coder of its own
   * is refused with the same fix — keep the clock's coder, or give the records' schema — rather
   * than "got coder SerializableCoder(...)" and nothing to do about it.
   */
  @Test
  void aMapElementsBeforeTheWindowsIsRefusedWithTheFix() {
    Pipeline p = SeedStreams.pipeline();
    PCollection<TimedEvent> events =
        mapped(clocked(p, "seed", HandOverTest.SEED.items()).events(), "Map");
    String message =
        assertThrows(IllegalArgumentException.class, () -> events.apply(hourly())).getMessage();
    assertThat(
        message,
        allOf(
            containsString("WindowedAggregate.by(\"customer_id\")"),
            containsString("SerializableCoder"),
            containsString(".setCoder(clocked.events().getCoder())"),
            containsString("WindowedAggregate.by(\"customer_id\").withRecordSchema(schema)")));
  }

  /**
   * With the records' schema the windows take any coder of TimedEvent. The seed's four orders of
   * customer 42 (10 at 10:00, 20 at 10:10, 5 at 10:01, 1 at 10:06) are all on time for the hour
   * 10:00-11:00 (the watermark never reaches 11:00 before the input ends, and a late event kept by
   * the clock is judged by the window): revision 1 holds 36, and the final record too.
   */
  @Test
  void withRecordSchemaTheWindowsTakeAnyCoder() {
    Pipeline p = SeedStreams.pipeline();
    ClockResult clocked =
        p.apply(
                Create.of(HandOverTest.SEED.items())
                    .withCoder(SourceRecordCoder.of(SeedStreams.ORDERS)))
            .apply(EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(HandOverTest.clock().keepingLateEvents());
    PCollection<WindowRevision> revisions =
        mapped(clocked.events(), "Map")
            .apply(hourly().withRecordSchema(SeedStreams.ORDERS))
            .revisions();
    PAssert.that(
            revisions.apply(
                MapElements.into(TypeDescriptors.strings())
                    .via(
                        (WindowRevision r) ->
                            r.status() + " " + r.values().getDecimal("revenue").toPlainString())))
        .containsInAnyOrder("ON_TIME 36", "FINAL 36");
    p.run().waitUntilFinish();
  }
}
