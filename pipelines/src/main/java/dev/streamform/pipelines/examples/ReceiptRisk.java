package dev.streamform.pipelines.examples;

import static org.apache.beam.sdk.values.TypeDescriptors.strings;

import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.decisions.DeadLetter;
import dev.streamform.transforms.decisions.Decision;
import dev.streamform.transforms.decisions.DecisionResult;
import dev.streamform.transforms.decisions.LateAction;
import dev.streamform.transforms.decisions.ScoreEvents;
import dev.streamform.transforms.decisions.Scorer;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.extraction.ExtractionResult;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Receipts scored against their merchant's spend in the last hour, in plain Java with Streamform's
 * transforms — the Java twin of {@code test-streams/fixtures/decisions/receipts}. Copy it to start
 * a scoring pipeline of your own.
 *
 * <ol>
 *   <li>each receipt's event time is read from {@code occurred_at} (the phone's clock); a receipt
 *       without a usable one is dead-lettered with the reason;
 *   <li>its partition's watermark trails the latest {@code occurred_at} by 5 minutes; the clock
 *       keeps late receipts, since the decisions' lateness (10 minutes) decides;
 *   <li>a receipt more than 5 minutes ahead of {@code received_at} (our server's clock) is
 *       dead-lettered: impossible clock skew;
 *   <li>every other receipt is scored, as of its occurrence, by {@link SpendShare}: its share of
 *       its merchant's spend over the hour up to it; an offline upload arriving when its
 *       partition's watermark is 10 minutes or more past its time revises the decisions it would
 *       have changed (each revision a new decision naming the one it supersedes), and feeds the
 *       decisions made after it.
 * </ol>
 */
public final class ReceiptRisk extends PTransform<PCollection<SourceRecord>, DecisionResult> {

  /** Receipts: {@code occurred_at} is an RFC 3339 instant, {@code received_at} a timestamp. */
  public static final Schema RECEIPTS =
      Schema.builder()
          .addInt64Field("merchant_id")
          .addDecimalField("amount")
          .addNullableField("occurred_at", Schema.FieldType.STRING)
          .addDateTimeField("received_at")
          .build();

  private final List<Integer> partitions;

  private ReceiptRisk(List<Integer> partitions) {
    this.partitions = List.copyOf(partitions);
  }

  /** Reads receipts from these partitions, each in offset order (a Kafka topic's partitions). */
  public static ReceiptRisk readingPartitions(Integer... partitions) {
    return new ReceiptRisk(List.of(partitions));
  }

  @Override
  public DecisionResult expand(PCollection<SourceRecord> receipts) {
    ExtractionResult extracted =
        receipts.apply("OccurredAt", EventTimeExtraction.from("occurred_at"));
    return extracted
        .events()
        .apply(
            "Clock",
            SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                .keepingLateEvents()
                // a receipt the scorer dead-letters for its clock moves no watermark (ADR 0195)
                .withMaxClockSkew(Duration.standardMinutes(5), "received_at")
                .withContiguousOffsets()
                .withPartitions(partitions))
        .events()
        .apply(
            "Score",
            ScoreEvents.forModel("receipt_risk")
                .by("merchant_id")
                .withFeatures(
                    Aggregation.sum("amount").as("spend_1h"),
                    Aggregation.countAll().as("receipts_1h"))
                .over(Duration.standardHours(1))
                .scoredBy(new SpendShare())
                .withLateness(Duration.standardMinutes(10))
                .onLateEvents(LateAction.REVISE)
                .lateEventsUpdateState(true)
                .withMaxClockSkew(Duration.standardMinutes(5), "received_at")
                .withQuarantine(extracted.quarantined()));
  }

  /**
   * {@code amount / (amount + spend_1h)}: 1 for a merchant's first receipt of the hour, small for a
   * receipt among many. Its digest names the formula and its version.
   */
  public static final class SpendShare implements Scorer {
    private static final String DIGEST =
        RevisionIdentity.hash(List.of("scorer", "spend-share", 1L));

    @Override
    public double score(Map<String, Double> inputs) {
      double amount = inputs.getOrDefault("amount", 0.0);
      return amount / (amount + inputs.getOrDefault("spend_1h", 0.0));
    }

    @Override
    public String digest() {
      return DIGEST;
    }
  }

  /**
   * A decision as one line, e.g. {@code receipt 1-0 merchant 7: scored r1 0.285714 (spend_1h
   * 100.0)}.
   */
  public static String describe(Decision d) {
    return "receipt "
        + d.eventId()
        + " merchant "
        + d.key().getInt64("merchant_id")
        + ": "
        + d.route()
        + " r"
        + d.revision()
        + " "
        + d.score()
        + " (spend_1h "
        + d.features().get("spend_1h")
        + (d.revisedBy() == null ? "" : ", revised by " + d.revisedBy())
        + ")";
  }

  /** A dead letter as one line. */
  public static String describe(DeadLetter d) {
    return "dead letter "
        + d.reason().name().toLowerCase(java.util.Locale.ROOT)
        + (d.eventId() == null ? "" : " " + d.eventId());
  }

  /** Runs the sample on the DirectRunner and prints its decisions and dead letters. */
  public static void main(String[] args) {
    Pipeline p = Pipeline.create(PipelineOptionsFactory.fromArgs(args).create());
    DecisionResult scored =
        p.apply("Receipts", Create.of(sampleReceipts()).withCoder(SourceRecordCoder.of(RECEIPTS)))
            .apply("ReceiptRisk", readingPartitions(0, 1));
    PCollectionList.of(
            scored
                .decisions()
                .apply("Decisions", MapElements.into(strings()).via(ReceiptRisk::describe)))
        .and(
            scored
                .deadLetters()
                .apply("DeadLetters", MapElements.into(strings()).via(ReceiptRisk::describe)))
        .apply("Lines", Flatten.pCollections())
        .apply("Print", ParDo.of(new Print()));
    p.run().waitUntilFinish();
  }

  /**
   * The sample, in arrival order per partition (the fixture {@code offline_uploads.yml}): a
   * watermark punctuation at 11:00 on both partitions, then the offline burst.
   */
  public static List<SourceRecord> sampleReceipts() {
    Samples s = new Samples();
    s.receipt(0, 7, "100", "10:00", "10:00");
    s.receipt(0, 7, "50", "10:20", "10:21");
    s.receipt(0, 8, "80", "10:25", "10:25");
    s.receipt(1, 7, "40", "10:10", "10:12");
    s.receipt(1, 7, "30", "10:30", "10:31");
    s.receipt(1, 7, "20", "10:36", "10:30"); // 6 minutes ahead of its arrival: dead letter
    s.punctuation(0, "11:00");
    s.punctuation(1, "11:00");
    s.receipt(0, 7, "60", "10:05", "11:02"); // late: revises 1-0, 0-1, 1-1
    s.receipt(0, 7, "15", "10:55", "11:03"); // within the lateness: scored at once
    s.receipt(1, 8, "25", "10:15", "11:04"); // late: revises 0-2
    s.receipt(1, 8, "5", null, "11:05"); // no occurred_at: dead letter
    return s.records;
  }

  private static final class Samples {
    final List<SourceRecord> records = new ArrayList<>();
    final Map<Integer, Long> offsets = new HashMap<>();

    void receipt(int partition, long merchant, String amount, String occurred, String received) {
      Row row =
          Row.withSchema(RECEIPTS)
              .addValues(
                  merchant,
                  new BigDecimal(amount),
                  occurred == null ? null : "2026-08-30T" + occurred + ":00Z",
                  at(received).toDateTime())
              .build();
      records.add(SourceRecord.of(partition, next(partition), READ_AT, row));
    }

    void punctuation(int partition, String hhmm) {
      records.add(SourceRecord.punctuation(partition, next(partition), READ_AT, at(hhmm)));
    }

    private long next(int partition) {
      return offsets.merge(partition, 1L, Long::sum) - 1;
    }

    private static Instant at(String hhmm) {
      return Instant.parse("2026-08-30T" + hhmm + ":00Z");
    }
  }

  private static final Instant READ_AT = new Instant(0);

  private static final class Print extends DoFn<String, Void> {
    @ProcessElement
    public void print(@Element String line) {
      System.out.println(line);
    }
  }
}
