package dev.streamform.transforms;

import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.dedup.Deduplicate;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.Values;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * ADR 0075: what a keyed stage releases is never late at the next stage, however many of its keys'
 * ticks fall due at one time and hold at one time — on the DirectRunner too, whose bookkeeping of
 * pending timers does not tell two keys' equal timers apart.
 */
class StageTimersTest {
  /**
   * Ids 0 and 1 once, id 2 repeated 2,000 times, all at 10:00 on one partition: the three ids'
   * ticks are due at one time and hold at one time, and id 2's firing takes longest (its repeats
   * are judged in it). Ids 0 and 1 fire, release their event and set their tick again for the
   * horizon; with one timer id shared by all keys the runner took id 2's hold away with theirs, the
   * stage's watermark passed 10:00 while id 2 was still being released, and the downstream window
   * had closed when it came: counted 2 of 3 (in 6 of 7 runs of this test; four branches per run).
   */
  @Test
  void anEventReleasedWhileOtherKeysTicksFireIsNotLateDownstream() {
    Pipeline p = SeedStreams.pipeline();
    for (int branch = 0; branch < 4; branch++) {
      String name = "branch" + branch;
      PCollection<TimedEvent> released =
          clocked(p, name)
              .apply(
                  name + "/Deduplicate",
                  Deduplicate.byId("customer_id", Duration.standardMinutes(10)))
              .events();
      PAssert.thatSingleton(name + "/ThreeReleased", countedOnTime(name, released)).isEqualTo(3L);
    }
    p.run().waitUntilFinish();
  }

  /**
   * The same for the changelog, with retention (a key's tick is set again for its expiry when it
   * fires): customers 0 and 1 once, customer 2 2,000 times, all at 10:00; every record is on time
   * at the next stage. With the declared tick customer 2's 2,000 records came late (counted 2 of
   * 2,002) in 3 of 5 runs; without retention nothing is set again and nothing failed.
   */
  @Test
  void aRecordEmittedWhileOtherKeysTicksFireIsNotLateDownstream() {
    Pipeline p = SeedStreams.pipeline();
    for (int branch = 0; branch < 4; branch++) {
      String name = "branch" + branch;
      PCollection<ChangelogRecord> records =
          clocked(p, name)
              .apply(
                  name + "/Changelog",
                  HandOverTest.model().withRetention(Duration.standardHours(1)));
      PAssert.thatSingleton(name + "/AllRecords", countedOnTime(name, records)).isEqualTo(2002L);
    }
    p.run().waitUntilFinish();
  }

  /** {@link #oneSlowKey()} through the extraction and the clock, as a branch of {@code p}. */
  private static PCollection<TimedEvent> clocked(Pipeline p, String name) {
    return p.apply(
            name + "/Create",
            Create.of(oneSlowKey().items()).withCoder(SourceRecordCoder.of(SeedStreams.ORDERS)))
        .apply(name + "/Extract", EventTimeExtraction.from("ordered_at"))
        .events()
        .apply(name + "/Clock", SourceClockTest.FIVE)
        .events();
  }

  /** Keys 0 and 1 once, key 2 2,000 times, all at 10:00 on one partition. */
  private static SeedStreams oneSlowKey() {
    SeedStreams log = new SeedStreams();
    log.event(0, "1", "10:00");
    log.event(1, "1", "10:00");
    for (int i = 0; i < 2000; i++) {
      log.event(2, "1", "10:00");
    }
    return log;
  }

  /**
   * How many elements reach one-minute windows that close with the watermark: an element behind it
   * is dropped, not counted.
   */
  private static <T> PCollection<Long> countedOnTime(String name, PCollection<T> elements) {
    return elements
        .apply(name + "/One", MapElements.into(TypeDescriptors.strings()).via((T e) -> "one"))
        .apply(name + "/Minutes", Window.into(FixedWindows.of(Duration.standardMinutes(1))))
        .apply(name + "/Count", Count.perElement())
        .apply(name + "/Counts", Values.create())
        .apply(name + "/All", Window.into(new GlobalWindows()))
        .apply(name + "/Sum", Sum.longsGlobally());
  }
}
