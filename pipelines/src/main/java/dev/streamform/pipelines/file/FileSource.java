package dev.streamform.pipelines.file;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import com.google.auto.value.AutoValue;
import dev.streamform.pipelines.SourceResult;
import dev.streamform.planner.Schemas;
import dev.streamform.planner.sinks.JsonRecords;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.planner.sinks.Quarantine;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.transforms.BadRecordCoder;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.joda.time.Instant;

/**
 * A {@code connector: file} source: files of JSON lines, file {@code i} of {@link #files()} being
 * partition {@code i}, and a line's offset its line number minus one (so offsets run 0, 1, 2, ...
 * without gaps, as the clock's {@code withContiguousOffsets()} wants, whatever order a runner
 * delivers them in). Each line is decoded by the declared schema exactly as a Kafka record's value
 * is ({@link JsonRecords}): a record, or {@code {"__watermark": ...}}, a punctuation of its file's
 * partition.
 *
 * <p>Guarantees: every non-blank line read ends up either in {@link SourceResult#records()} or in
 * {@link SourceResult#quarantined()} (a Beam {@link BadRecord} whose description is {@code
 * partition <p> offset <o>: <reason>} and whose encoded record is {@link #LINE}); a bad line never
 * stops the run. A quarantined or blank line leaves a gap at its offset (a punctuation at the
 * beginning of time, which says nothing about time), so its partition's offsets stay contiguous.
 * Counts {@code records_read} (non-blank lines), {@code punctuations_read} and, for undecodable
 * lines, {@code events_quarantined}. Reading one line costs bounded time and memory: a line over
 * {@link #MAX_LINE} bytes is quarantined unread, and every decoding limit of {@link JsonRecords}
 * applies; a line that is not UTF-8, and any failure to decode or type a line, quarantines it.
 *
 * <pre>{@code
 * SourceResult read = p.apply(FileSource.of(List.of("orders.jsonl"), schema, key));
 * read.records().apply(EventTimeExtraction.from("ordered_at"));
 * }</pre>
 */
@AutoValue
public abstract class FileSource extends PTransform<PBegin, SourceResult> {
  /** The coder of a quarantined line: {@code KV<KV<partition, offset>, the line's bytes>}. */
  public static final KvCoder<KV<Integer, Long>, byte[]> LINE =
      KvCoder.of(KvCoder.of(VarIntCoder.of(), VarLongCoder.of()), ByteArrayCoder.of());

  /**
   * The longest line read, in bytes: a longer one is quarantined, kept as its first {@value
   * #SHOWN_OF_LONG_LINE} bytes, and the rest skipped unread into memory.
   */
  public static final int MAX_LINE = JsonRecords.MAX_RECORD_BYTES;

  /**
   * A line this source could not decode, as its quarantine row's key and value; its encoded record
   * is {@code KV<KV<partition, offset>, bytes>} ({@link #LINE}).
   */
  public static KV<String, String> unreadableLine(BadRecord bad) {
    KV<KV<Integer, Long>, byte[]> line = ModelSinks.decode(bad, LINE);
    return ModelSinks.quarantined(
        line.getKey().getKey(),
        line.getKey().getValue(),
        bad.getFailure().getDescription(),
        line.getValue());
  }

  static final int SHOWN_OF_LONG_LINE = 1000;

  /** The files, partition 0 first; absolute paths. */
  public abstract List<String> files();

  public abstract Map<String, ColumnType> schema();

  public abstract List<String> keyColumns();

  /** Every this many lines of a file, a progress line on standard error; 0 = none. */
  public abstract long progressEvery();

  /** Whether a watermark line is a punctuation: false for a source without event time. */
  public abstract boolean punctuations();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setFiles(List<String> files);

    abstract Builder setSchema(Map<String, ColumnType> schema);

    abstract Builder setKeyColumns(List<String> keys);

    abstract Builder setProgressEvery(long lines);

    abstract Builder setPunctuations(boolean punctuations);

    abstract FileSource build();
  }

  /**
   * Reads {@code files} (file {@code i} = partition {@code i}); {@code keyColumns} must have
   * values.
   */
  public static FileSource of(
      List<Path> files, Map<String, ColumnType> schema, List<String> keyColumns) {
    checkArgument(!files.isEmpty(), "a file source needs at least one file");
    checkArgument(!schema.isEmpty(), "a source needs a schema");
    for (String k : keyColumns) {
      checkArgument(schema.containsKey(k), "key column `%s` is not in the schema %s", k, schema);
    }
    List<String> paths = new ArrayList<>();
    files.forEach(f -> paths.add(f.toAbsolutePath().toString()));
    return new AutoValue_FileSource.Builder()
        .setFiles(List.copyOf(paths))
        .setSchema(new LinkedHashMap<>(schema))
        .setKeyColumns(List.copyOf(keyColumns))
        .setProgressEvery(0)
        .setPunctuations(true)
        .build();
  }

  /** Prints {@code read N lines of FILE} on standard error every {@code lines} lines of a file. */
  public FileSource withProgressEvery(long lines) {
    checkArgument(lines >= 0, "progress every %s lines: give 0 (none) or more", lines);
    return toBuilder().setProgressEvery(lines).build();
  }

  /**
   * For a source that declares no event time: a watermark line is quarantined as meaningless, not
   * read as a punctuation ({@link JsonRecords#withoutPunctuations}).
   */
  public FileSource withoutPunctuations() {
    return toBuilder().setPunctuations(false).build();
  }

  @Override
  public SourceResult expand(PBegin input) {
    Schema schema = Schemas.of(schema());
    List<KV<Integer, String>> partitions = new ArrayList<>();
    for (int i = 0; i < files().size(); i++) {
      partitions.add(KV.of(i, files().get(i)));
    }
    TupleTag<SourceRecord> records = new TupleTag<>("records");
    TupleTag<BadRecord> quarantined = new TupleTag<>("quarantined");
    PCollectionTuple out =
        input
            .apply(
                "Files",
                Create.of(partitions).withCoder(KvCoder.of(VarIntCoder.of(), StringUtf8Coder.of())))
            .apply(
                "Read lines",
                ParDo.of(
                        new ReadFn(
                            JsonRecords.of(schema(), keyColumns(), punctuations()),
                            schema,
                            progressEvery(),
                            records,
                            quarantined))
                    .withOutputTags(records, TupleTagList.of(quarantined)));
    return new SourceResult(
        input.getPipeline(),
        records,
        out.get(records).setCoder(SourceRecordCoder.of(schema)),
        quarantined,
        out.get(quarantined).setCoder(BadRecordCoder.of()));
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(
            DisplayData.item("files", String.join(", ", files()))
                .withLabel("Files (partition 0 first)"))
        .add(DisplayData.item("key", String.join(",", keyColumns())));
  }

  /**
   * Lines read (not blank) by every file source in this JVM so far: what {@code run} says it had
   * read when it is interrupted, on a runner in this process (a cluster's workers count their own).
   */
  private static final java.util.concurrent.atomic.LongAdder LINES_READ =
      new java.util.concurrent.atomic.LongAdder();

  /**
   * Whether a line (its bytes, without the newline) is blank: nothing but spaces, tabs and carriage
   * returns, the whitespace JSON allows around a value. Other characters {@link String#isBlank}
   * counts as white space (U+001F, a vertical tab, a form feed, U+3000, U+2028) make a line that is
   * not JSON, quarantined as such.
   */
  public static boolean isBlank(byte[] line) {
    for (byte b : line) {
      if (b != ' ' && b != '\t' && b != '\r') {
        return false;
      }
    }
    return true;
  }

  /** The lines (not blank) every file source in this JVM has read so far. */
  public static long linesReadInThisJvm() {
    return LINES_READ.sum();
  }

  private static final class ReadFn extends DoFn<KV<Integer, String>, SourceRecord> {
    private final JsonRecords json;
    private final Schema schema;
    private final long progressEvery;
    private final TupleTag<SourceRecord> records;
    private final TupleTag<BadRecord> quarantined;
    private final Counter read = StreamformMetrics.counter(StreamformMetrics.RECORDS_READ);
    private final Counter punctuations =
        StreamformMetrics.counter(StreamformMetrics.PUNCTUATIONS_READ);
    private final Counter quarantinedCount =
        StreamformMetrics.counter(StreamformMetrics.QUARANTINED);

    ReadFn(
        JsonRecords json,
        Schema schema,
        long progressEvery,
        TupleTag<SourceRecord> records,
        TupleTag<BadRecord> quarantined) {
      this.json = json;
      this.schema = schema;
      this.progressEvery = progressEvery;
      this.records = records;
      this.quarantined = quarantined;
    }

    @ProcessElement
    public void process(@Element KV<Integer, String> file, MultiOutputReceiver out) {
      int partition = file.getKey();
      Path path = Path.of(file.getValue());
      Instant readAt = Instant.now();
      long offset = 0;
      long blank = 0;
      try (BoundedLines lines = BoundedLines.of(path)) {
        for (byte[] bytes = lines.next(); bytes != null; bytes = lines.next(), offset++) {
          if (progressEvery > 0 && offset > 0 && offset % progressEvery == 0) {
            progress().printf(Locale.ROOT, "streamform run: read %,d lines of %s%n", offset, path);
          }
          // for display only: a malformed byte shows as U+FFFD, the quarantine keeps the bytes
          String line = new String(bytes, StandardCharsets.UTF_8);
          if (isBlank(bytes)) {
            blank++;
            out.get(records).output(gap(partition, offset, readAt));
            continue;
          }
          read.inc();
          LINES_READ.increment();
          SourceRecord decoded = null;
          String reason;
          if (lines.tooLong()) {
            // only the line's start was read: it is kept (cut) in the quarantine row
            bytes = Arrays.copyOf(bytes, Math.min(bytes.length, SHOWN_OF_LONG_LINE));
            line = new String(bytes, StandardCharsets.UTF_8);
            reason =
                String.format(
                    Locale.ROOT,
                    "the line is %,d bytes long, more than the limit of %,d",
                    lines.length(),
                    MAX_LINE);
          } else {
            try {
              decoded = decode(partition, offset, readAt, bytes);
              reason = null;
            } catch (JsonRecords.NotARecord notARecord) {
              reason = notARecord.getMessage();
            } catch (RuntimeException e) {
              // whatever else one line provokes is that line's fault: it must not stop the run
              reason = "cannot be decoded: " + e;
            }
          }
          // outside the try: a failure downstream (fused into this call) is not this line's
          if (decoded != null) {
            out.get(records).output(decoded);
            continue;
          }
          quarantinedCount.inc();
          out.get(records).output(gap(partition, offset, readAt));
          out.get(quarantined).output(unreadable(partition, offset, line, bytes, reason));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + path + " (partition " + partition + ")", e);
      }
      if (progressEvery > 0) {
        // the lines the summary counts as read: blank lines are skipped (docs/guides/files.md)
        progress()
            .printf(
                Locale.ROOT,
                "streamform run: read %s: %,d %s%s%n",
                path,
                offset - blank,
                offset - blank == 1 ? "line" : "lines",
                blank == 0
                    ? ""
                    : String.format(
                        Locale.ROOT,
                        ", %,d blank %s skipped",
                        blank,
                        blank == 1 ? "line" : "lines"));
      }
    }

    private SourceRecord decode(int partition, long offset, Instant readAt, byte[] line)
        throws JsonRecords.NotARecord {
      JsonRecords.Decoded decoded = json.decode(line);
      if (decoded.watermark() != null) {
        punctuations.inc();
        return SourceRecord.punctuation(
            partition, offset, readAt, new Instant(decoded.watermark().toEpochMilli()));
      }
      return SourceRecord.of(partition, offset, readAt, Schemas.row(schema, decoded.values()));
    }

    @SuppressWarnings("SystemOut") // progress of a run embedded in the command's own process
    private static PrintStream progress() {
      return System.err;
    }

    private static SourceRecord gap(int partition, long offset, Instant readAt) {
      return SourceRecord.punctuation(partition, offset, readAt, BoundedWindow.TIMESTAMP_MIN_VALUE);
    }

    private static BadRecord unreadable(
        int partition, long offset, String line, byte[] bytes, String reason) throws IOException {
      return BadRecord.builder()
          .setRecord(
              BadRecord.Record.builder()
                  .setHumanReadableJsonRecord(line)
                  .addCoderAndEncodedRecord(LINE, KV.of(KV.of(partition, offset), bytes))
                  .build())
          .setFailure(
              BadRecord.Failure.builder()
                  .setDescription(Quarantine.describe(partition, offset, reason))
                  .build())
          .build();
    }
  }
}
