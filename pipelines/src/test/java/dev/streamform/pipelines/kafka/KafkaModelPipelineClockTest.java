package dev.streamform.pipelines.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.pipelines.ModelPipeline;
import dev.streamform.pipelines.SourceResult;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.policies.project.Project;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 16: the topic's partitions reach the clock of every model {@code streamform run} builds on
 * Kafka, upsert models included, so no key's state can expire before each partition has delivered
 * (see {@code QuarantinedFirstRecordTest} in transforms for what happens without). The first test
 * inspects the built graph; the second runs the model's pipeline as {@link KafkaModelPipeline}
 * builds it, on records delivered the way KafkaIO delivers them on the DirectRunner, and checks the
 * changelog: no broker is needed for either.
 */
class KafkaModelPipelineClockTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @ParameterizedTest(name = "windowed={0}")
  @ValueSource(booleans = {false, true})
  void theTopicsPartitionsAreDeclaredToTheClock(boolean windowed) throws Exception {
    DeclaredModel model = project(windowed);
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    KafkaModelPipeline.build(
        p, model, KafkaConnection.plaintext("127.0.0.1:1"), null, List.of(0, 1, 2));

    List<SourceClock> clocks = new ArrayList<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            if (node.getTransform() instanceof SourceClock) {
              clocks.add((SourceClock) node.getTransform());
            }
            return CompositeBehavior.ENTER_TRANSFORM;
          }
        });
    assertEquals(1, clocks.size(), "one clock in the pipeline");
    assertEquals(List.of(0, 1, 2), clocks.get(0).partitions());
  }

  /**
   * Issue 16's story through {@link KafkaModelPipeline#outputs}: partition 0 moves {@code W_0} to
   * 10:20, so key 42 (latest 10:00, retention 10m) is due to expire at 10:10; partition 1's first
   * record (quarantined: no {@code ordered_at}) is emitted in the step that moves the runner's
   * watermark past it, as KafkaIO does on the DirectRunner ({@link ReadLikeKafka}); partition 1's
   * next event is 42 at 10:05, with {@code W_1} undefined, so key 42 is alive for it
   * (docs/semantics.md §3): {@code update 42 15}. Without the partitions declared to the clock the
   * runner's watermark passes 10:10 before partition 1 has spoken, key 42 is freed, and the event
   * inserts it anew.
   */
  @Test
  void aPartitionsFirstRecordInFlightExpiresNoKeyWithThePartitionsDeclared() throws Exception {
    DeclaredModel model = project(false);
    Schema schema = model.recordSchema();
    Instant read = Instant.parse("2026-08-30T12:00:00Z");
    TestStream<SourceRecord> stream =
        TestStream.create(SourceRecordCoder.of(schema))
            .addElements(
                TimestampedValue.of(
                    order(schema, 0, 0, 42L, "10", "10:00"),
                    read.minus(Duration.standardMinutes(2))))
            .addElements(
                TimestampedValue.of(
                    order(schema, 0, 1, 7L, "3", "10:25"), read.minus(Duration.standardMinutes(1))))
            .addElements(TimestampedValue.of(order(schema, 1, 0, 8L, "1", null), read))
            .advanceWatermarkTo(read.plus(Duration.millis(1)))
            .addElements(
                TimestampedValue.of(
                    order(schema, 1, 1, 42L, "5", "10:05"), read.plus(Duration.standardSeconds(1))))
            .advanceWatermarkToInfinity();
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    PCollection<SourceRecord> records = p.apply("Records", new ReadLikeKafka(stream));
    SourceResult source =
        new SourceResult(
            p,
            new TupleTag<>("records"),
            records,
            new TupleTag<>("quarantined"),
            p.apply("Undecodable", Create.empty(BadRecord.getCoder(p))));

    ModelPipeline.Outputs out = KafkaModelPipeline.outputs(model, source, null, List.of(0, 1));

    PAssert.that(
            out.records()
                .apply(
                    "Lines",
                    MapElements.into(TypeDescriptors.strings())
                        .via(KafkaModelPipelineClockTest::line)))
        .containsInAnyOrder("42 insert 10 0-0", "7 insert 3 0-1", "42 update 15 1-1");
    p.run().waitUntilFinish();
  }

  /** {@code <customer> <op> <total_spend> <event>} of a changelog record's JSON key and value. */
  private static String line(KV<String, String> record) {
    try {
      JsonNode key = JSON.readTree(record.getKey());
      JsonNode value = JSON.readTree(record.getValue());
      return key.get("customer_id").asText()
          + " "
          + value.get("op").asText()
          + " "
          + new BigDecimal(value.get("total_spend").asText()).stripTrailingZeros().toPlainString()
          + " "
          + value.get(ModelSinks.EVENT_FIELD).asText();
    } catch (Exception e) {
      throw new IllegalStateException("not a changelog record: " + record, e);
    }
  }

  private static SourceRecord order(
      Schema schema, int partition, long offset, long customer, String amount, String hhmm) {
    Row row =
        Row.withSchema(schema)
            .withFieldValue("customer_id", customer)
            .withFieldValue("amount", new BigDecimal(amount))
            .withFieldValue(
                "ordered_at", hhmm == null ? null : Instant.parse("2026-08-30T" + hhmm + ":00Z"))
            .build();
    return SourceRecord.of(partition, offset, new Instant(0), row);
  }

  /**
   * The TestStream read the way KafkaIO with {@code ClockGatedTimestampPolicy} reads on the
   * DirectRunner: partition 1's first record is emitted (at its read time) in the step that moves
   * the watermark past its read time, so it is in flight while the watermark is already there (a
   * plain TestStream step would let it reach the clock first). As in {@code
   * QuarantinedFirstRecordTest} (transforms), whose tests this module cannot reach.
   */
  private static final class ReadLikeKafka extends PTransform<PBegin, PCollection<SourceRecord>> {
    private final TestStream<SourceRecord> stream;

    ReadLikeKafka(TestStream<SourceRecord> stream) {
      this.stream = stream;
    }

    @Override
    public PCollection<SourceRecord> expand(PBegin begin) {
      SourceRecordCoder coder = (SourceRecordCoder) stream.getValueCoder();
      return begin
          .apply("Stream", stream)
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

  private DeclaredModel project(boolean windowed) throws Exception {
    write(
        "sources.yml",
        String.join(
            "\n",
            "sources:",
            "  orders:",
            "    connector: kafka",
            "    topic: orders",
            "    schema:",
            "      customer_id: int64",
            "      amount: decimal(12,2)",
            "      ordered_at: timestamp",
            "    event_time: ordered_at",
            "    watermark: 5m",
            ""));
    write(
        "streamform.yml",
        String.join(
            "\n",
            "models:",
            "  customer_metrics:",
            "    key: [customer_id]",
            windowed ? "    window: 1h" : "    retention: 10m",
            ""));
    write(
        "models/customer_metrics.sql",
        "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY"
            + " customer_id\n");
    return DeclaredModel.of(Project.load(dir), "customer_metrics");
  }

  private void write(String relative, String text) throws Exception {
    Path f = dir.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
  }
}
