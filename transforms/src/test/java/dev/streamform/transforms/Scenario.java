package dev.streamform.transforms;

import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.LateEvent;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.extraction.ExtractionResult;
import java.io.BufferedWriter;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptors;

/**
 * One source log through extraction, the clock and a changelog, with its three outputs as text
 * lines: the same lines on every runner, so runs can be compared exactly.
 *
 * <ul>
 *   <li>changelog: {@code p<partition>/<offset> <op> <key values> <aggregate values>}
 *   <li>late: {@code p<partition>/<offset> <event time> < <watermark lost to>}
 *   <li>quarantined: {@code <description> | decoded p<partition>/<offset>}
 * </ul>
 */
final class Scenario {
  final PCollection<String> changelog;
  final PCollection<String> late;
  final PCollection<String> quarantined;

  private Scenario(
      PCollection<String> changelog, PCollection<String> late, PCollection<String> quarantined) {
    this.changelog = changelog;
    this.late = late;
    this.quarantined = quarantined;
  }

  /** Builds the scenario {@code name} reading a TestStream of {@code delivery}. */
  static Scenario of(
      Pipeline p,
      String name,
      List<SourceRecord> delivery,
      SourceClock clock,
      KeyedChangelog model) {
    return of(p, name, SeedStreams.testStreamOf(delivery), clock, model);
  }

  static Scenario of(
      Pipeline p,
      String name,
      org.apache.beam.sdk.transforms.PTransform<
              org.apache.beam.sdk.values.PBegin, PCollection<SourceRecord>>
          stream,
      SourceClock clock,
      KeyedChangelog model) {
    ExtractionResult extracted =
        p.apply(name + "/Read", stream)
            .apply(name + "/Extract", EventTimeExtraction.from("ordered_at"));
    ClockResult clocked = extracted.events().apply(name + "/Clock", clock);
    PCollection<ChangelogRecord> changes = clocked.events().apply(name + "/Model", model);
    return new Scenario(
        changes.apply(
            name + "/ChangelogLines",
            MapElements.into(TypeDescriptors.strings()).via(Scenario::changelogLine)),
        clocked
            .late()
            .apply(
                name + "/LateLines",
                MapElements.into(TypeDescriptors.strings()).via(Scenario::lateLine)),
        extracted
            .quarantined()
            .apply(
                name + "/QuarantineLines",
                MapElements.into(TypeDescriptors.strings()).via(Scenario::quarantineLine)));
  }

  static String changelogLine(ChangelogRecord r) {
    StringBuilder b =
        new StringBuilder()
            .append('p')
            .append(r.partition())
            .append('/')
            .append(r.offset())
            .append(' ')
            .append(r.op().name().toLowerCase());
    appendValues(b, r.key());
    appendValues(b, r.values());
    return b.toString();
  }

  private static void appendValues(StringBuilder b, Row row) {
    for (Object v : row.getValues()) {
      b.append(' ').append(v instanceof BigDecimal ? ((BigDecimal) v).toPlainString() : v);
    }
  }

  static String lateLine(LateEvent e) {
    return "p"
        + e.envelope().partition()
        + "/"
        + e.envelope().offset()
        + " "
        + e.envelope().eventTime()
        + " < "
        + e.watermark();
  }

  static String quarantineLine(BadRecord bad) {
    try {
      SourceRecordCoder coder = SourceRecordCoder.of(SeedStreams.ORDERS);
      SourceRecord decoded =
          coder.decode(new java.io.ByteArrayInputStream(bad.getRecord().getEncodedRecord()));
      return bad.getFailure().getDescription()
          + " | decoded p"
          + decoded.partition()
          + "/"
          + decoded.offset();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The committed value of counter {@code name} in namespace "streamform"; fails naming it when the
   * pipeline reported no such counter (a misspelt name, or one no step ever moved), so that an
   * expected 0 cannot pass for a counter that does not exist.
   */
  static long counter(PipelineResult result, String name) {
    MetricQueryResults q =
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.named(StreamformMetrics.NAMESPACE, name))
                    .build());
    if (!q.getCounters().iterator().hasNext()) {
      throw new AssertionError(
          "no counter "
              + StreamformMetrics.NAMESPACE
              + "/"
              + name
              + " in the pipeline's metrics (a misspelt name, or no step ever moved it)");
    }
    long total = 0;
    for (MetricResult<Long> c : q.getCounters()) {
      Long v;
      try {
        v = c.getCommitted();
      } catch (UnsupportedOperationException e) {
        v = c.getAttempted();
      }
      total += v == null ? 0 : v;
    }
    return total;
  }

  /**
   * Counter {@code name}, or 0 when the pipeline reported none: only for a counter that no step
   * moves in the run (an expiry without retention); pair it with {@link #counter} on one that must
   * exist.
   */
  static long counterIfReported(PipelineResult result, String name) {
    try {
      return counter(result, name);
    } catch (AssertionError absent) {
      return 0;
    }
  }

  /** Writes each line to a file of its own under {@code dir} (one file per DoFn instance). */
  void writeTo(String name, Path dir) {
    changelog.apply(name + "/WriteChangelog", ParDo.of(new LinesToFiles(dir.resolve("changelog"))));
    late.apply(name + "/WriteLate", ParDo.of(new LinesToFiles(dir.resolve("late"))));
    quarantined.apply(
        name + "/WriteQuarantined", ParDo.of(new LinesToFiles(dir.resolve("quarantined"))));
  }

  /** All lines written under {@code dir}, sorted. */
  static List<String> readLines(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.collect(Collectors.toList())) {
        lines.addAll(Files.readAllLines(f, StandardCharsets.UTF_8));
      }
    }
    return lines.stream().sorted().collect(Collectors.toList());
  }

  /** A file sink honest on any runner in one JVM or not: every element is flushed as written. */
  static final class LinesToFiles extends DoFn<String, Void> {
    private final String dir;
    private transient BufferedWriter out;

    LinesToFiles(Path dir) {
      this.dir = dir.toString();
    }

    @Setup
    public void setup() throws IOException {
      Path d = Paths.get(dir);
      Files.createDirectories(d);
      out =
          Files.newBufferedWriter(
              d.resolve(UUID.randomUUID() + ".txt"),
              StandardCharsets.UTF_8,
              StandardOpenOption.CREATE_NEW,
              StandardOpenOption.WRITE);
    }

    @ProcessElement
    public void process(@Element String line) throws IOException {
      out.write(line);
      out.write('\n');
      out.flush();
    }

    @Teardown
    public void teardown() throws IOException {
      if (out != null) {
        out.close();
      }
    }
  }
}
