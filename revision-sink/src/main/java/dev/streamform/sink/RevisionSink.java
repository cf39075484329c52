package dev.streamform.sink;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import com.google.auto.value.AutoValue;
import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.windows.WindowRevision;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TupleTag;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Writes a windowed model's revisions to PostgreSQL (docs/semantics.md §8): compare-and-set
 * projections, the append-only correction ledger, held revisions, conflicts and the canonical
 * alias, as {@link LedgerWriter} describes. Previews are ignored; final records mark their
 * projection final.
 *
 * <pre>{@code
 * RevisionSinkResult written = windowed.revisions().apply(
 *     RevisionSink.to(JdbcTarget.of("jdbc:postgresql://127.0.0.1:5432/postgres").withUser("postgres")));
 * written.conflicts();   // PCollection<RevisionConflict>: records refused (also logged and counted)
 * }</pre>
 *
 * <p>Records are buffered per bundle and written in batches of up to {@link #batchSize()}, one
 * transaction each, at the latest when the bundle finishes: the runner commits a bundle only after
 * its batches committed, so a failed bundle is retried and the retry is a no-op for what was
 * written. Each DoFn instance has its own small connection pool (HikariCP) and, before its first
 * write, checks the schema ({@link LedgerSchema#check}: a schema {@code streamform} of another
 * application fails the bundle in one message naming the database, whoever submitted the job) and
 * migrates it (Flyway). A database that is unreachable or restarting is retried for {@link
 * #retryTimeout()} from when it became unavailable, by every writer of it alike ({@link
 * DatabaseRetry}); after that the bundle fails, saying it gave up, and the runner's own retry (if
 * any) takes over.
 *
 * <p>Metrics (namespace {@value StreamformMetrics#NAMESPACE}): {@value #APPLIED}, {@value
 * #RELEASED}, {@value #HELD}, {@value #REPLAYED}, {@value #FINALIZED}, {@value #CONFLICTS}, {@value
 * #PREVIEWS}, {@value #RETRIES}, {@value #EFFECT_RULE_ERRORS}.
 *
 * <p>A refused record goes out on {@link RevisionSinkResult#conflicts()} in the window and at the
 * timestamp of the record that brought it to the writer: itself, or — for a held record refused
 * when a later batch settles its window — the batch's record of the same projection.
 */
@AutoValue
public abstract class RevisionSink
    extends PTransform<PCollection<WindowRevision>, RevisionSinkResult> {
  public static final String APPLIED = "sink_revisions_applied";
  public static final String RELEASED = "sink_held_revisions_released";
  public static final String HELD = "sink_revisions_held";
  public static final String REPLAYED = "sink_records_replayed";
  public static final String FINALIZED = "sink_windows_finalized";
  public static final String CONFLICTS = "sink_conflicts";
  public static final String PREVIEWS = "sink_previews_ignored";
  public static final String RETRIES = "sink_retries";

  /**
   * Effect rules that could not be evaluated on a revision, recorded in {@code effect_rule_error}.
   */
  public static final String EFFECT_RULE_ERRORS = "sink_effect_rule_errors";

  public abstract JdbcTarget target();

  public abstract int batchSize();

  public abstract Duration retryTimeout();

  /**
   * The effect rules whose ledger the sink keeps (the transactional outbox, docs/semantics.md §10).
   */
  public abstract List<EffectRule> effects();

  /**
   * True for a shadow sink ({@link #asShadow}): never moves the canonical alias; effects only of
   * the keys that read its generation.
   */
  public abstract boolean shadow();

  /**
   * The run whose writers these are ({@link #forRun}): each conflict they refuse is recorded as
   * refused by it; null records none.
   */
  public abstract @Nullable String runId();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setTarget(JdbcTarget target);

    abstract Builder setBatchSize(int size);

    abstract Builder setRetryTimeout(Duration timeout);

    abstract Builder setEffects(List<EffectRule> effects);

    abstract Builder setShadow(boolean shadow);

    abstract Builder setRunId(@Nullable String runId);

    abstract RevisionSink build();
  }

  /**
   * A sink to {@code target}: batches of up to 500 records, unreachable database retried for 5
   * minutes.
   */
  public static RevisionSink to(JdbcTarget target) {
    checkArgument(target != null, "RevisionSink.to: no JdbcTarget");
    return new AutoValue_RevisionSink.Builder()
        .setTarget(target)
        .setBatchSize(500)
        .setRetryTimeout(Duration.standardMinutes(5))
        .setEffects(List.of())
        .setShadow(false)
        .build();
  }

  /** At most {@code size} records per transaction. */
  public RevisionSink withBatchSize(int size) {
    checkArgument(size > 0, "RevisionSink.withBatchSize: must be positive, got %s", size);
    return toBuilder().setBatchSize(size).build();
  }

  /**
   * How long after the database became unavailable (connection lost, restart) the writers keep
   * retrying ({@link DatabaseRetry}); a deadlock or lost race is retried that long per batch.
   */
  public RevisionSink withRetryTimeout(Duration timeout) {
    checkArgument(
        timeout != null && !timeout.isShorterThan(Duration.ZERO),
        "RevisionSink.withRetryTimeout: must be 0 or more, got %s",
        timeout);
    return toBuilder().setRetryTimeout(timeout).build();
  }

  /**
   * Keeps the effect ledger of {@code rules} too: an effect is written PREPARED in the transaction
   * of the canonical revision that makes its rule true, and followed, cancelled or compensated by
   * later revisions ({@link LedgerWriter}). Nothing is sent from the pipeline: {@code streamform
   * dispatch} does that.
   */
  public RevisionSink withEffects(List<EffectRule> rules) {
    checkArgument(rules != null, "RevisionSink.withEffects: no rules");
    return toBuilder().setEffects(new ArrayList<>(rules)).build();
  }

  /**
   * A sink for a shadow generation ({@code streamform run --shadow}, docs/semantics.md §8 and the
   * rollout): it writes the generation's own projections and ledger rows, but never makes it the
   * model's canonical alias; its {@linkplain #withEffects effect rules} act only for the keys that
   * read its generation — a canary share's, or every key once it is promoted while the job runs
   * ({@link LedgerWriter#shadow(javax.sql.DataSource, java.time.Duration, List)}).
   */
  public RevisionSink asShadow() {
    return toBuilder().setShadow(true).build();
  }

  /**
   * A sink whose writers record each conflict they refuse as refused by the run {@code runId}
   * ({@link LedgerWriter#forRun}), so that run counts the conflicts it offered itself ({@link
   * Ledger#conflictsRefusedBy}), not those another run of the same generation offered meanwhile
   * (docs/decisions/0114). Give each run its own id.
   */
  public RevisionSink forRun(String runId) {
    checkArgument(runId != null && !runId.isEmpty(), "RevisionSink.forRun: no run id");
    return toBuilder().setRunId(runId).build();
  }

  @Override
  public RevisionSinkResult expand(PCollection<WindowRevision> revisions) {
    TupleTag<RevisionConflict> tag = new TupleTag<>() {};
    PCollection<RevisionConflict> conflicts =
        revisions
            .apply(
                shadow() ? "Write shadow revisions" : "Write revisions",
                ParDo.of(
                    new WriteFn(
                        target(), batchSize(), retryTimeout(), effects(), shadow(), runId())))
            .setCoder(RevisionConflict.Coder.of());
    return new RevisionSinkResult(revisions.getPipeline(), tag, conflicts);
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("database", target().describe()).withLabel("Database"))
        .add(DisplayData.item("batchSize", batchSize()).withLabel("Batch size"))
        .add(DisplayData.item("effects", effects().size()).withLabel("Effect rules"))
        .add(
            DisplayData.item("shadow", shadow())
                .withLabel("Shadow (never the alias; effects only of keys reading it)"))
        .add(
            DisplayData.item("retryTimeout", retryTimeout().getStandardSeconds() + "s")
                .withLabel("Retry timeout"));
  }

  /** Buffers a bundle's records and writes them in batches through a {@link LedgerWriter}. */
  private static final class WriteFn extends DoFn<WindowRevision, RevisionConflict> {
    private final JdbcTarget target;
    private final int batchSize;
    private final Duration retryTimeout;
    private final List<EffectRule> effects;
    private final boolean shadow;
    private final @Nullable String runId;

    private final Counter applied = StreamformMetrics.counter(APPLIED);
    private final Counter released = StreamformMetrics.counter(RELEASED);
    private final Counter held = StreamformMetrics.counter(HELD);
    private final Counter replayed = StreamformMetrics.counter(REPLAYED);
    private final Counter finalized = StreamformMetrics.counter(FINALIZED);
    private final Counter conflicts = StreamformMetrics.counter(CONFLICTS);
    private final Counter previews = StreamformMetrics.counter(PREVIEWS);
    private final Counter retries = StreamformMetrics.counter(RETRIES);
    private final Counter ruleErrors = StreamformMetrics.counter(EFFECT_RULE_ERRORS);

    private transient HikariDataSource pool;
    private transient LedgerWriter writer;
    private transient List<Buffered> buffer;
    private transient List<Buffered> refused;

    /** A record with where it came from, so a refusal goes out in its window at its timestamp. */
    private record Buffered(
        WindowRevision record,
        Instant timestamp,
        BoundedWindow window,
        RevisionConflict conflict) {}

    WriteFn(
        JdbcTarget target,
        int batchSize,
        Duration retryTimeout,
        List<EffectRule> effects,
        boolean shadow,
        @Nullable String runId) {
      this.runId = runId;
      this.target = target;
      this.batchSize = batchSize;
      this.retryTimeout = retryTimeout;
      this.effects = new ArrayList<>(effects);
      this.shadow = shadow;
    }

    @Setup
    public void setup() {
      pool = target.openPool("streamform-revision-sink", 2, 2_000);
      java.time.Duration retryFor = Times.toJava(retryTimeout);
      writer =
          shadow
              ? LedgerWriter.shadow(pool, retryFor, effects)
              : new LedgerWriter(pool, retryFor, effects);
      if (runId != null) {
        writer = writer.forRun(runId);
      }
    }

    @StartBundle
    public void startBundle() {
      buffer = new ArrayList<>();
      refused = new ArrayList<>();
    }

    @ProcessElement
    public void process(
        @Element WindowRevision r, @Timestamp Instant timestamp, BoundedWindow window)
        throws SQLException {
      if (!r.isRevision() && r.status() != WindowStatus.FINAL) {
        previews.inc();
        return;
      }
      buffer.add(new Buffered(r, timestamp, window, null));
      if (buffer.size() >= batchSize) {
        flush();
      }
    }

    @FinishBundle
    public void finishBundle(FinishBundleContext context) throws SQLException {
      flush();
      for (Buffered b : refused) {
        context.output(b.conflict(), b.timestamp(), b.window());
      }
      refused.clear();
    }

    private void flush() throws SQLException {
      if (buffer.isEmpty()) {
        return;
      }
      List<WindowRevision> records = new ArrayList<>(buffer.size());
      Map<String, Buffered> byIdentity = new HashMap<>();
      Map<String, Buffered> byProjection = new HashMap<>();
      for (Buffered b : buffer) {
        records.add(b.record());
        byIdentity.putIfAbsent(
            identity(
                b.record().projectionId(),
                b.record().revision(),
                b.record().status() == WindowStatus.FINAL),
            b);
        byProjection.putIfAbsent(b.record().projectionId(), b);
      }
      LedgerWriter.Outcome outcome = writer.write(records);
      buffer.clear();
      applied.inc(outcome.applied());
      released.inc(outcome.released());
      held.inc(outcome.held());
      replayed.inc(outcome.replayed());
      finalized.inc(outcome.finalized());
      retries.inc(outcome.retries());
      ruleErrors.inc(outcome.effects().ruleErrors());
      conflicts.inc(outcome.conflicts().size());
      for (RevisionConflict c : outcome.conflicts()) {
        Buffered source = byIdentity.get(identity(c.projectionId(), c.revision(), c.isFinal()));
        if (source == null) {
          // a held record (the conflict carries the ledger's stored copy) refused when this
          // batch's record of its projection settled the window
          source = byProjection.get(c.projectionId());
        }
        refused.add(new Buffered(source.record(), source.timestamp(), source.window(), c));
      }
    }

    private static String identity(String projectionId, int revision, boolean isFinal) {
      return projectionId + "/" + revision + (isFinal ? "/final" : "");
    }

    @Teardown
    public void teardown() {
      if (pool != null) {
        pool.close();
      }
    }
  }
}
