package dev.streamform.transforms;

import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.math.BigDecimal;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 16: can a partition whose <em>first</em> record is quarantined (no event time) let the
 * runner's watermark pass it, so that an expiry timer frees a key that the partition's next event
 * must still find alive? On the DirectRunner: yes, unless the clock knows the partitions up front.
 *
 * <p>The stream is what KafkaIO with {@code ClockGatedTimestampPolicy} gives the DirectRunner. The
 * runner watermark stays at the beginning of time until partition 1's first record has been read;
 * then KafkaIO emits that record (timestamped with its read time, 12:00) and, in the same commit,
 * moves its watermark to processing time. {@link ReadLikeKafka} reproduces exactly that: it holds
 * partition 1's first record back and emits it when the watermark moves, so the record is in flight
 * while the watermark is already at 12:00 (a plain TestStream step would let the record reach the
 * clock first: the DirectRunner finishes each step before the next).
 *
 * <p>Partition 0 moves {@code W_0} to 10:20; key 42's state (latest 10:00, retention 10m) is due to
 * expire at 10:10. Partition 1's first record has no {@code ordered_at} (or, for comparison, is an
 * ordinary event of another key); its next is 42 at 10:05, judged against {@code W_1}. {@code W_1}
 * is undefined (the quarantined record says nothing about time) or 09:55, so by docs/semantics.md
 * §3 key 42 is alive for that event: {@code update 42 15}.
 *
 * <ul>
 *   <li>With the partitions declared ({@link SourceClock#withPartitions}), each holds the clock's
 *       output watermark from the start, so nothing expires before partition 1 has spoken: {@code
 *       update 42 15}, in both hand-over modes. This is what {@code streamform run} now does for
 *       every model on Kafka.
 *   <li>Without them, the record in flight holds the watermark only at its read time, the clock's
 *       output watermark moves to {@code W_0} = 10:20 before the record reaches the clock, the
 *       changelog's timer frees key 42 and the event emits {@code insert 42 5}: the review's
 *       finding, whatever the first record is (a quarantined record or an event). On Flink the
 *       record reaches the clock before any later watermark of its reader (one channel, in order),
 *       which is why a run on a cluster did not show it.
 * </ul>
 */
class QuarantinedFirstRecordTest {

  private static final Instant READ = Instant.parse("2026-08-30T12:00:00Z");

  @ParameterizedTest(name = "first record quarantined={0}, partitions declared={1}, on arrival={2}")
  @CsvSource({
    "true, true, false",
    "true, true, true",
    "false, true, false",
    "true, false, false",
    "true, false, true",
    "false, false, false"
  })
  void aPartitionsFirstRecordHoldsTheWatermarkOnlyWhenThePartitionsAreDeclared(
      boolean quarantinedFirst, boolean declared, boolean onArrival) {
    SourceRecordCoder coder = SourceRecordCoder.of(SeedStreams.ORDERS);
    TestStream<SourceRecord> stream =
        TestStream.create(coder)
            .addElements(
                TimestampedValue.of(
                    record(0, 0, 42, "10", "2026-08-30T10:00:00Z"),
                    READ.minus(Duration.standardMinutes(2))))
            .addElements(
                TimestampedValue.of(
                    record(0, 1, 7, "3", "2026-08-30T10:25:00Z"),
                    READ.minus(Duration.standardMinutes(1))))
            .addElements(
                TimestampedValue.of(
                    quarantinedFirst
                        ? record(1, 0, 8, "1", null)
                        : record(1, 0, 8, "1", "2026-08-30T10:00:00Z"),
                    READ))
            .advanceWatermarkTo(READ.plus(Duration.millis(1)))
            .addElements(
                TimestampedValue.of(
                    record(1, 1, 42, "5", "2026-08-30T10:05:00Z"),
                    READ.plus(Duration.standardSeconds(1))))
            .advanceWatermarkToInfinity();
    Pipeline p = SeedStreams.pipeline();
    var model = Scenarios.customerMetrics().withRetention(Duration.standardMinutes(10));
    SourceClock clock = SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5));
    Scenario s =
        Scenario.of(
            p,
            "firstRecord",
            new ReadLikeKafka(stream),
            declared ? clock.withPartitions(0, 1) : clock,
            onArrival ? model.appliedOnArrival() : model);
    String partitionOne = quarantinedFirst ? null : "p1/0 insert 8 1";
    String answer = declared ? "p1/1 update 42 15" : "p1/1 insert 42 5";
    if (partitionOne == null) {
      PAssert.that(s.changelog).containsInAnyOrder("p0/0 insert 42 10", "p0/1 insert 7 3", answer);
      PAssert.that(s.quarantined)
          .containsInAnyOrder(
              "partition 1 offset 0: no value for event-time column `ordered_at` | decoded p1/0");
    } else {
      PAssert.that(s.changelog)
          .containsInAnyOrder("p0/0 insert 42 10", "p0/1 insert 7 3", partitionOne, answer);
    }
    p.run().waitUntilFinish();
  }

  private static SourceRecord record(
      int partition, long offset, long customer, String amount, String orderedAt) {
    Row row =
        Row.withSchema(SeedStreams.ORDERS)
            .addValues(customer, new BigDecimal(amount), orderedAt)
            .build();
    return SourceRecord.of(partition, offset, SeedStreams.INGEST, row);
  }

  /**
   * The TestStream, read the way KafkaIO reads on the DirectRunner: partition 1's first record is
   * emitted (at its read time) in the same step that moves the watermark past its read time.
   */
  private static final class ReadLikeKafka
      extends PTransform<org.apache.beam.sdk.values.PBegin, PCollection<SourceRecord>> {
    private final TestStream<SourceRecord> stream;

    ReadLikeKafka(TestStream<SourceRecord> stream) {
      this.stream = stream;
    }

    @Override
    public PCollection<SourceRecord> expand(org.apache.beam.sdk.values.PBegin begin) {
      SourceRecordCoder coder = (SourceRecordCoder) stream.getValueCoder();
      return begin
          .apply("Records", stream)
          .apply(
              "OneReader",
              WithKeys.<Integer, SourceRecord>of(0).withKeyType(TypeDescriptors.integers()))
          .setCoder(KvCoder.of(VarIntCoder.of(), coder))
          .apply("EmitWithWatermark", ParDo.of(new EmitWithWatermark(coder)))
          .setCoder(coder);
    }
  }

  private static final class EmitWithWatermark
      extends DoFn<KV<Integer, SourceRecord>, SourceRecord> {
    @StateId("held")
    private final StateSpec<BagState<SourceRecord>> heldSpec;

    @TimerId("read")
    private final TimerSpec readSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    EmitWithWatermark(SourceRecordCoder coder) {
      this.heldSpec = StateSpecs.bag(coder);
    }

    @ProcessElement
    public void process(
        @Element KV<Integer, SourceRecord> element,
        @Timestamp Instant readAt,
        @StateId("held") BagState<SourceRecord> held,
        @TimerId("read") Timer read,
        OutputReceiver<SourceRecord> out) {
      SourceRecord r = element.getValue();
      if (r.partition() == 1 && r.offset() == 0) {
        held.add(r);
        read.withOutputTimestamp(readAt).set(readAt);
      } else {
        out.output(r);
      }
    }

    @OnTimer("read")
    public void emit(
        @StateId("held") BagState<SourceRecord> held, OutputReceiver<SourceRecord> out) {
      held.read().forEach(out::output);
      held.clear();
    }
  }
}
