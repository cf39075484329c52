package dev.streamform.planner;

import dev.streamform.policies.declarations.DecisionsSpec;
import dev.streamform.policies.declarations.EarlyResults;
import dev.streamform.policies.declarations.LinearModel;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.declarations.WindowSpec;
import dev.streamform.policies.project.Problem;
import dev.streamform.policies.project.Project;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.sql.ModelQuery;
import dev.streamform.policies.sql.ModelSql;
import dev.streamform.policies.sql.OutputColumn;
import dev.streamform.policies.sql.RowPredicate;
import dev.streamform.policies.sql.SqlModelException;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.changelog.ChangelogRecordCoder;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.decisions.FeatureContract;
import dev.streamform.transforms.decisions.LateAction;
import dev.streamform.transforms.decisions.LinearScorer;
import dev.streamform.transforms.decisions.ScoreEvents;
import dev.streamform.transforms.decisions.Scorer;
import dev.streamform.transforms.windows.CalendarWindow;
import dev.streamform.transforms.windows.WindowedAggregate;
import dev.streamform.transforms.windows.WindowedResult;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A model of a project, turned into the composite transforms that run it: the source's clock (from
 * {@code sources.yml}) and the keyed changelog (from {@code streamform.yml} and the model's SQL).
 * Fixtures and production pipelines build their transforms here, so both run the same code.
 */
public final class DeclaredModel {
  private final ModelDeclaration model;
  private final SourceDeclaration source;
  private final ModelQuery query;

  private DeclaredModel(ModelDeclaration model, SourceDeclaration source, ModelQuery query) {
    this.model = model;
    this.source = source;
    this.query = query;
  }

  /** The model {@code name} of a loaded (hence valid) project. */
  public static DeclaredModel of(Project project, String name) {
    ModelDeclaration model = project.models().get(name);
    if (model == null) {
      throw new IllegalArgumentException(
          "no model named '" + name + "'; models: " + String.join(", ", project.models().keySet()));
    }
    try {
      return new DeclaredModel(model, project.sourceOf(model), ModelSql.parse(model.sql()));
    } catch (SqlModelException e) {
      throw new IllegalStateException("model " + name + " was checked when the project loaded", e);
    }
  }

  public ModelDeclaration model() {
    return model;
  }

  /**
   * This model under policy generation {@code generation} instead of the declared one
   * (docs/semantics.md §9; {@code streamform run --generation N}): its revisions carry {@code
   * generation} and their {@code projection_id = H(logical_window_id, generation)}; the logical
   * window ids, and every other part of the declaration, are unchanged.
   */
  public DeclaredModel withGeneration(int generation) {
    if (generation < 1) {
      throw new IllegalArgumentException(
          "a generation is a whole number from 1, got " + generation);
    }
    return generation == model.generation()
        ? this
        : new DeclaredModel(model.toBuilder().setGeneration(generation).build(), source, query);
  }

  public SourceDeclaration source() {
    return source;
  }

  public ModelQuery query() {
    return query;
  }

  /**
   * The source columns the model's state is keyed by: the query's GROUP BY columns. The {@code
   * key:} of streamform.yml names the same columns as the query outputs them (an alias may rename
   * them: {@code customer_id AS customer}).
   */
  public List<String> keyColumns() {
    return query.keyColumns();
  }

  /** The model's source: its record schema and declared clock. */
  public DeclaredSource declaredSource() {
    return DeclaredSource.of(source);
  }

  /** The Beam schema of the source's records. */
  public Schema recordSchema() {
    return declaredSource().recordSchema();
  }

  /** The model's output columns and their types, key columns first as selected. */
  public Map<String, ColumnType> outputColumns() {
    return new LinkedHashMap<>(query.outputColumns(source.schema()));
  }

  /** True for a model with {@code window:} (docs/semantics.md §6). */
  public boolean windowed() {
    return model.windowed();
  }

  /**
   * The source's clock for fixtures; see {@link DeclaredSource#clock()}. A windowed model's clock
   * keeps late events: for a windowed model the window decides (docs/semantics.md §6).
   */
  public SourceClock clock() {
    // its idle markers (a file run's) name this model's generation (docs/semantics.md §9.7)
    SourceClock clock = declaredSource().clock().withGeneration(model.generation());
    return skewBound(kind().keepsLateEvents() ? clock.keepingLateEvents() : clock);
  }

  /**
   * {@code clock} with the scoring model's {@code max_clock_skew}: an event it dead-letters for its
   * clock moves no watermark (ADR 0195).
   */
  private SourceClock skewBound(SourceClock clock) {
    Optional<DecisionsSpec> d = model.decisions().filter(s -> s.maxClockSkew().isPresent());
    return d.isEmpty()
        ? clock
        : clock.withMaxClockSkew(
            Times.toJoda(d.get().maxClockSkew().get()), d.get().arrival().orElse(null));
  }

  /**
   * The source's clock for a Kafka log; see {@link DeclaredSource#logClock()} and {@link #clock()}.
   */
  public SourceClock logClock() {
    // its idle markers name this model's generation (docs/semantics.md §9.7)
    SourceClock clock = declaredSource().logClock().withGeneration(model.generation());
    return skewBound(kind().keepsLateEvents() ? clock.keepingLateEvents() : clock);
  }

  /**
   * The source's duplicate detection ({@code event_id:}), applied by every pipeline of this model —
   * changelog, windows and decisions alike — right after the clock and before the WHERE; see {@link
   * DeclaredSource#deduplicate()}. Ids are the source's whole log's, but with {@code
   * event_id_scope: key} an upsert model's are scoped by its key ({@link
   * dev.streamform.transforms.dedup.Deduplicate#withinKey}, ADR 0073). In log order; {@link
   * DeclaredPipeline} judges on arrival where the changelog applies on arrival and the ids are
   * scoped by key. Empty when the source declares no {@code event_id}.
   */
  public Optional<dev.streamform.transforms.dedup.Deduplicate> deduplicate() {
    boolean byKey =
        declaredSource().declaration().eventIdScope()
            == dev.streamform.policies.declarations.SourceDeclaration.EventIdScope.KEY;
    return declaredSource().deduplicate().map(d -> byKey ? kind().scoped(d, this) : d);
  }

  /** The model's kind, one type per kind: its stage and record shapes (issue 30). */
  public ModelKind kind() {
    return ModelKind.of(this);
  }

  /** True for a scoring model, with {@code decisions:} (docs/semantics.md §11). */
  public boolean decides() {
    return model.decides();
  }

  /**
   * The scoring model as configured by streamform.yml and its query: the query's aggregates are the
   * features over {@code features_over}; the scorer is the declared linear model (its digest the
   * file's SHA-256) or an instance of the declared {@code Scorer} class.
   */
  public ScoreEvents scoreEvents() {
    DecisionsSpec d =
        model
            .decisions()
            .orElseThrow(
                () -> new IllegalStateException("model " + model.name() + " has no decisions"));
    ScoreEvents s =
        ScoreEvents.forModel(model.name())
            .by(keyColumns())
            .withFeatures(aggregations())
            .over(Times.toJoda(d.featuresOver()))
            .scoredBy(scorerOf(d))
            .withContract(FeatureContract.valueOf(d.contract().name()))
            .withLateness(Times.toJoda(d.lateness()))
            .onLateEvents(LateAction.valueOf(d.lateAction().name()))
            .lateEventsUpdateState(d.lateUpdatesState())
            .withGeneration(model.generation());
    if (d.maxClockSkew().isPresent()) {
      s = s.withMaxClockSkew(Times.toJoda(d.maxClockSkew().get()), d.arrival().orElse(null));
    }
    if (source.eventId().isPresent()) {
      s = s.withEventIds(source.eventId().get()); // a decision names its event by the source's id
    }
    return s;
  }

  private Scorer scorerOf(DecisionsSpec d) {
    if (d.linear().isPresent()) {
      LinearModel m = d.linear().get();
      return LinearScorer.of(m.weights(), m.bias(), m.digest());
    }
    String name =
        d.scorer().orElseThrow(() -> new IllegalStateException("decisions without a scorer"));
    String fix =
        "put the class on the class path of the pipeline that runs the model (a Java author's"
            + " pipeline, docs/guides/java-authors.md), or score with linear:"
            + " models/<model>.linear.yml";
    Class<?> c;
    try {
      c = Class.forName(name, true, Thread.currentThread().getContextClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw scorerProblem("class " + name + " is not on the class path", fix);
    }
    if (!Scorer.class.isAssignableFrom(c)) {
      throw scorerProblem(
          "class " + name + " is not a " + Scorer.class.getName(),
          "implement Scorer (score(inputs) and digest()) or name a class that does");
    }
    try {
      return (Scorer) c.getDeclaredConstructor().newInstance();
    } catch (NoSuchMethodException | IllegalAccessException e) {
      throw scorerProblem(
          "class " + name + " has no public no-argument constructor",
          "give it one: the scorer is made once per worker, without arguments");
    } catch (InvocationTargetException e) {
      throw scorerProblem(
          "the constructor of " + name + " failed: " + e.getCause(),
          "make its no-argument constructor succeed");
    } catch (InstantiationException e) {
      throw scorerProblem(
          "class " + name + " cannot be made (abstract or an interface)", "name a concrete class");
    }
  }

  /**
   * The declared scorer cannot be made: a problem of streamform.yml, said without the cause's stack
   * (a fixture's report and {@code run} print the message).
   */
  private IllegalArgumentException scorerProblem(String message, String fix) {
    return new UnbuildableDeclaration(
        Problem.of(
                "streamform.yml",
                0,
                Optional.of("model '" + model.name() + "'"),
                Optional.of("decisions.scorer"),
                message,
                Optional.of(fix))
            .toString());
  }

  /** The windowed model's aggregate as configured by streamform.yml and its query. */
  public WindowedAggregate windowAggregate() {
    WindowSpec spec =
        model
            .window()
            .orElseThrow(
                () -> new IllegalStateException("model " + model.name() + " has no window"));
    WindowedAggregate base =
        spec.isCalendar()
            ? WindowedAggregate.of(calendarOf(spec))
            : spec.isHopping()
                ? WindowedAggregate.of(
                    SlidingWindows.of(Times.toJoda(spec.size())).every(Times.toJoda(spec.every())))
                : WindowedAggregate.of(FixedWindows.of(Times.toJoda(spec.size())));
    WindowedAggregate w =
        base.forModel(model.name())
            .by(keyColumns())
            .aggregating(aggregations())
            .withAllowedLateness(Times.toJoda(model.allowedLateness()))
            .withGeneration(model.generation());
    EarlyResults early = model.earlyResults();
    if (early.kind() == EarlyResults.Kind.EVERY_EVENTS) {
      w = w.withEarlyResultsEvery(early.everyEvents());
    } else if (early.kind() == EarlyResults.Kind.EVERY_INTERVAL) {
      w = w.withEarlyResultsEvery(Times.toJoda(early.everyInterval()));
    }
    for (OutputColumn c : query.outputs()) {
      if (c.kind() == OutputColumn.Kind.KEY && !c.name().equals(c.argument().get())) {
        w = w.withKeyName(c.argument().get(), c.name());
      }
    }
    return w;
  }

  /** A declared calendar window as the engine's {@link CalendarWindow} (semantics §6.22). */
  static CalendarWindow calendarOf(WindowSpec spec) {
    switch (spec.calendarUnit().get()) {
      case DAY:
        return CalendarWindow.days(spec.zoneOrUtc());
      case WEEK:
        return CalendarWindow.weeks(spec.zoneOrUtc(), spec.weekStarts());
      default:
        return CalendarWindow.months(spec.zoneOrUtc());
    }
  }

  /** The windowed model as a transform from clocked events to its records (WHERE, then windows). */
  public PTransform<PCollection<TimedEvent>, WindowedResult> windows() {
    WindowedAggregate windows = windowAggregate();
    Optional<PTransform<PCollection<TimedEvent>, PCollection<TimedEvent>>> where = where();
    return new PTransform<>("Model " + model.name()) {
      @Override
      public WindowedResult expand(PCollection<TimedEvent> events) {
        PCollection<TimedEvent> selected =
            where.isPresent() ? events.apply("Where", where.get()) : events;
        return selected.apply("Windows", windows);
      }
    };
  }

  /**
   * The query's WHERE clause as a filter of clocked events; empty when the query has none. It comes
   * after the clock (a filtered event still advances its partition's watermark) and before the
   * keyed state or the windows, as SQL filters rows before it groups them.
   */
  public Optional<PTransform<PCollection<TimedEvent>, PCollection<TimedEvent>>> where() {
    if (query.where().isEmpty()) {
      return Optional.empty();
    }
    RowPredicate where = query.where().get();
    return Optional.of(
        new PTransform<>() {
          @Override
          public PCollection<TimedEvent> expand(PCollection<TimedEvent> events) {
            return events.apply("Filter", ParDo.of(new WhereFn(where))).setCoder(events.getCoder());
          }
        });
  }

  private List<Aggregation> aggregations() {
    List<Aggregation> aggregations = new ArrayList<>();
    for (OutputColumn c : query.outputs()) {
      if (c.kind() == OutputColumn.Kind.AGGREGATE) {
        Aggregation a =
            c.argument().isEmpty()
                ? Aggregation.countAll()
                : Aggregation.of(
                    Aggregation.Function.valueOf(c.function().get().name()), c.argument().get());
        aggregations.add(a.as(c.name()));
      }
    }
    return aggregations;
  }

  /** The model's query as a transform from clocked events to the changelog. */
  public PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> changelog() {
    return changelog(false);
  }

  /**
   * The model's query as a transform from clocked events to the changelog; with {@code onArrival},
   * events are applied as they arrive ({@link KeyedChangelog#appliedOnArrival()}), for runners that
   * keep each key's order between stages.
   */
  public PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> changelog(
      boolean onArrival) {
    return changelog(onArrival, null);
  }

  /**
   * {@link #changelog(boolean)}, whose events the changelog cannot apply (an int64 sum that would
   * overflow) go to {@code refused} ({@link KeyedChangelog#withBadRecordErrorHandler}); null: they
   * fail the pipeline.
   */
  public PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> changelog(
      boolean onArrival, @Nullable ErrorHandler<BadRecord, ?> refused) {
    List<Aggregation> aggregations = aggregations();
    Map<String, String> sourceOfKey = new LinkedHashMap<>();
    for (OutputColumn c : query.outputs()) {
      if (c.kind() == OutputColumn.Kind.KEY) {
        sourceOfKey.put(c.name(), c.argument().get());
      }
    }
    KeyedChangelog changelog = KeyedChangelog.by(keyColumns()).aggregating(aggregations);
    if (model.retention().isPresent()) {
      changelog = changelog.withRetention(Times.toJoda(model.retention().get()));
    }
    if (onArrival) {
      changelog = changelog.appliedOnArrival();
    }
    if (refused != null) {
      changelog = changelog.withBadRecordErrorHandler(refused);
    }
    KeyedChangelog keyed = changelog;
    Optional<PTransform<PCollection<TimedEvent>, PCollection<TimedEvent>>> where = where();
    Map<String, String> keyNames = new LinkedHashMap<>();
    sourceOfKey.forEach(
        (name, column) -> {
          if (!name.equals(column)) {
            keyNames.put(column, name);
          }
        });
    return new PTransform<>("Model " + model.name()) {
      @Override
      public PCollection<ChangelogRecord> expand(PCollection<TimedEvent> events) {
        PCollection<TimedEvent> selected =
            where.isPresent() ? events.apply("Where", where.get()) : events;
        PCollection<ChangelogRecord> changes = selected.apply("Changelog", keyed);
        return keyNames.isEmpty() ? changes : renameKeys(changes, keyNames);
      }
    };
  }

  /** Key columns named as the SELECT names them ({@code customer_id AS cid} gives {@code cid}). */
  private static PCollection<ChangelogRecord> renameKeys(
      PCollection<ChangelogRecord> changes, Map<String, String> names) {
    ChangelogRecordCoder coder = (ChangelogRecordCoder) changes.getCoder();
    Schema.Builder renamed = Schema.builder();
    for (Schema.Field f : coder.keySchema().getFields()) {
      renamed.addField(f.withName(names.getOrDefault(f.getName(), f.getName())));
    }
    Schema keySchema = renamed.build();
    return changes
        .apply(
            "KeyNames",
            MapElements.into(TypeDescriptor.of(ChangelogRecord.class))
                .via(
                    (ChangelogRecord r) ->
                        ChangelogRecord.of(
                                r.op(),
                                Row.withSchema(keySchema).addValues(r.key().getValues()).build(),
                                r.values(),
                                r.eventId(),
                                r.partition(),
                                r.offset(),
                                r.eventTime())
                            .emitted(r.emittedAt(), r.emission())))
        .setCoder(ChangelogRecordCoder.of(keySchema, coder.valueSchema()));
  }

  /** Keeps the events the WHERE selects; counts the others ({@link StreamformMetrics#FILTERED}). */
  private static final class WhereFn extends DoFn<TimedEvent, TimedEvent> {
    private final RowPredicate where;
    private final Counter filtered = StreamformMetrics.counter(StreamformMetrics.FILTERED);

    WhereFn(RowPredicate where) {
      this.where = where;
    }

    @ProcessElement
    public void process(@Element TimedEvent event, OutputReceiver<TimedEvent> out) {
      if (matches(where, event.envelope().record())) {
        out.output(event);
      } else {
        filtered.inc();
      }
    }
  }

  private static boolean matches(RowPredicate where, Row record) {
    return where.test(column -> Schemas.fromBeam(record.getValue(column)));
  }
}
