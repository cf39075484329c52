package dev.streamform.transforms;

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
   * had closed when it came: counted 2 of 3 (about one run in two; four branches per run).
   */
  @Test
  void anEventReleasedWhileOtherKeysTicksFireIsNotLateDownstream() {
    SeedStreams log = new SeedStreams();
    log.event(0, "1", "10:00");
    log.event(1, "1", "10:00");
    for (int i = 0; i < 2000; i++) {
      log.event(2, "1", "10:00");
    }
    Pipeline p = SeedStreams.pipeline();
    for (int branch = 0; branch < 4; branch++) {
      String name = "branch" + branch;
      PCollection<TimedEvent> released =
          p.apply(
                  name + "/Create",
                  Create.of(log.items()).withCoder(SourceRecordCoder.of(SeedStreams.ORDERS)))
              .apply(name + "/Extract", EventTimeExtraction.from("ordered_at"))
              .events()
              .apply(name + "/Clock", SourceClockTest.FIVE)
              .events()
              .apply(
                  name + "/Deduplicate",
                  Deduplicate.byId("customer_id", Duration.standardMinutes(10)))
              .events();
      // a window that closes with the watermark: an event behind it is dropped, not counted
      PCollection<Long> counted =
          released
              .apply(
                  name + "/One",
                  MapElements.into(TypeDescriptors.strings()).via((TimedEvent e) -> "released"))
              .apply(name + "/Minutes", Window.into(FixedWindows.of(Duration.standardMinutes(1))))
              .apply(name + "/Count", Count.perElement())
              .apply(name + "/Counts", Values.create())
              .apply(name + "/All", Window.into(new GlobalWindows()))
              .apply(name + "/Sum", Sum.longsGlobally());
      PAssert.thatSingleton(name + "/ThreeReleased", counted).isEqualTo(3L);
    }
    p.run().waitUntilFinish();
  }
}
