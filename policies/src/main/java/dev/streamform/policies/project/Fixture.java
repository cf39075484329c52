package dev.streamform.policies.project;

import com.google.auto.value.AutoValue;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.declarations.WindowSpec;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.time.Timestamps;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A fixture of a project ({@code fixtures/<name>.yml}): the items given to a model's source in
 * delivery order, the changelog (or, for a windowed model, the previews, revisions and final
 * records) it must produce and the events it must drop as late or as duplicates. Values are already
 * typed by the source schema and the model's output columns (int64 -> Long, decimal -> BigDecimal,
 * timestamp -> Instant, ...). Read with {@link #load(Project, Path)}.
 */
@AutoValue
public abstract class Fixture {
  /**
   * The keys a scoring model's {@code expect:} row gives itself, as {@code DecisionComparison}
   * compares them and {@code --accept} writes them: a feature so named could not be given beside
   * them, so {@code check} refuses it ({@code ProjectLoader.checkAddedFields}); a source column so
   * named is given as {@code <source>.<column>} (ADR 0174). {@code reason}: a dead letter's (or a
   * late event's) reason, which the row may give as the code or a text its description contains.
   */
  public static final List<String> DECISION_ROW_KEYS =
      List.of("event", "route", "score", "revision", "state_revision", "reason");

  /** The file name without {@code .yml}. */
  public abstract String name();

  public abstract Path file();

  public abstract String model();

  public abstract List<Given> given();

  public abstract List<Row> expect();

  public abstract List<Row> late();

  /**
   * The events a fixture expects to be quarantined ({@code quarantined:}), in delivery order: each
   * row's {@link Row#values()} are columns of the source that the event must have, plus optionally
   * {@code reason}, a text the quarantine's reason must contain. A quarantined event not listed
   * fails the fixture, as docs/semantics.md §2 asks; a listed one accepts it.
   */
  public abstract List<Row> quarantined();

  /**
   * The events a fixture expects to be dropped as duplicates ({@code duplicates:}), in delivery
   * order: each row's {@link Row#values()} are the event's columns, as a {@code late:} row gives
   * them. Like {@code late:}, the list is exact: a duplicate dropped but not listed fails the
   * fixture, and so does a listed one that was not dropped. Only for a source with {@code
   * event_id:}; a repeated id with another payload is a conflict, listed under {@code
   * quarantined:}.
   */
  public abstract List<Row> duplicates();

  /**
   * {@code tolerance:} how far a double column may be from the value a row expects: it matches when
   * {@code |expected - actual| <= tolerance * max(1, |expected|)} (absolute below 1, relative
   * above). Empty: the run's default ({@code streamform test --tolerance}, else exact).
   */
  public abstract Optional<Double> tolerance();

  /** This fixture, with {@code tolerance} when it gives none of its own. */
  public Fixture withDefaultTolerance(double tolerance) {
    return tolerance().isPresent()
        ? this
        : new AutoValue_Fixture(
            name(),
            file(),
            model(),
            given(),
            expect(),
            late(),
            quarantined(),
            duplicates(),
            Optional.of(tolerance));
  }

  /** One {@code given:} item: an event or a watermark. */
  @AutoValue
  public abstract static class Given {
    public abstract int line();

    public abstract int partition();

    /** 1-based number among the fixture's events (0 for a watermark item). */
    public abstract int eventNumber();

    /** The event's columns (absent ones are null); empty for a watermark item. */
    public abstract Optional<Map<String, Object>> event();

    /** The watermark of a watermark item. */
    public abstract Optional<Instant> watermark();

    /** True when a watermark item named no partition: it then applies to every partition. */
    public abstract boolean allPartitions();

    static Given event(int line, int partition, int number, Map<String, Object> values) {
      return new AutoValue_Fixture_Given(
          line, partition, number, Optional.of(values), Optional.empty(), false);
    }

    static Given watermark(int line, Optional<Integer> partition, Instant watermark) {
      return new AutoValue_Fixture_Given(
          line,
          partition.orElse(0),
          0,
          Optional.empty(),
          Optional.of(watermark),
          partition.isEmpty());
    }
  }

  /**
   * One row of {@code expect:} or {@code late:}, with its line. For an upsert model only {@link
   * #values()} is set. For a windowed model (docs/semantics.md §6) an {@code expect:} row also has
   * its window, {@link #revision()} and {@link #status()} (always) and the identity fields it gives
   * (optional in fixtures); a {@code late:} row also has its {@link #windowStart()}, the window
   * that refused the event.
   */
  @AutoValue
  public abstract static class Row {
    public abstract int line();

    /**
     * Column -> typed value, in the order written: for an upsert {@code expect:} row {@code op}
     * ("insert" or "update") and the output columns; for a windowed one the key and output columns
     * only; for a {@code late:} row the event's columns.
     */
    public abstract Map<String, Object> values();

    /** The window's start: every row of a windowed model. */
    public abstract Optional<Instant> windowStart();

    /** The window's end (exclusive): every {@code expect:} row of a windowed model. */
    public abstract Optional<Instant> windowEnd();

    /** The revision: 0 for an early preview, 1 and up otherwise; windowed {@code expect:} rows. */
    public abstract Optional<Integer> revision();

    /** early, on_time, corrected or final; windowed {@code expect:} rows. */
    public abstract Optional<WindowStatus> status();

    /** {@code logical_window_id}, 64 hex digits, when the row gives it. */
    public abstract Optional<String> logicalWindowId();

    /** {@code projection_id}, 64 hex digits, when the row gives it. */
    public abstract Optional<String> projectionId();

    /** {@code predecessor}, the revision this one replaces, when the row gives it. */
    public abstract Optional<Integer> predecessor();

    /** {@code aggregate_digest}, 64 hex digits, when the row gives it. */
    public abstract Optional<String> aggregateDigest();

    /**
     * {@code offsets}: partition -> the offsets of the events included, when the row gives them.
     */
    public abstract Optional<Map<Integer, OffsetRange>> offsets();

    static Row of(int line, Map<String, Object> values) {
      return builder(line, values).build();
    }

    static Builder builder(int line, Map<String, Object> values) {
      return new AutoValue_Fixture_Row.Builder().setLine(line).setValues(values);
    }

    /** Builds a {@link Row}. */
    @AutoValue.Builder
    abstract static class Builder {
      abstract Builder setLine(int line);

      abstract Builder setValues(Map<String, Object> values);

      abstract Builder setWindowStart(Instant start);

      abstract Builder setWindowEnd(Instant end);

      abstract Builder setRevision(Integer revision);

      abstract Builder setStatus(WindowStatus status);

      abstract Builder setLogicalWindowId(String id);

      abstract Builder setProjectionId(String id);

      abstract Builder setPredecessor(Integer revision);

      abstract Builder setAggregateDigest(String digest);

      abstract Builder setOffsets(Map<Integer, OffsetRange> offsets);

      abstract Row build();
    }
  }

  /**
   * The offsets of one partition's events included in a revision: the smallest, the largest and how
   * many ({@code {min: 0, max: 3, count: 4}}). A fixture event's offset is its position among its
   * partition's items, from 0.
   */
  @AutoValue
  public abstract static class OffsetRange {
    public abstract long min();

    public abstract long max();

    public abstract long count();

    static OffsetRange of(long min, long max, long count) {
      return new AutoValue_Fixture_OffsetRange(min, max, count);
    }
  }

  static Fixture create(
      String name, Path file, String model, List<Given> given, List<Row> expect, List<Row> late) {
    return create(name, file, model, given, expect, late, List.of(), List.of(), Optional.empty());
  }

  static Fixture create(
      String name,
      Path file,
      String model,
      List<Given> given,
      List<Row> expect,
      List<Row> late,
      List<Row> quarantined,
      List<Row> duplicates,
      Optional<Double> tolerance) {
    return new AutoValue_Fixture(
        name,
        file,
        model,
        List.copyOf(given),
        List.copyOf(expect),
        List.copyOf(late),
        List.copyOf(quarantined),
        List.copyOf(duplicates),
        tolerance);
  }

  /** A fixture built in code (e.g. a generated trace): given items only, no expectations. */
  public static Builder builder(String name, String model) {
    return new Builder(name, model);
  }

  /** Collects {@code given:} items in delivery order, numbering events as a fixture file does. */
  public static final class Builder {
    private final String name;
    private final String model;
    private final List<Given> given = new java.util.ArrayList<>();
    private int events;

    private Builder(String name, String model) {
      this.name = name;
      this.model = model;
    }

    /**
     * An event on {@code partition}; absent columns are null.
     *
     * @throws IllegalArgumentException when a timestamp value ({@link Instant}) is finer than a
     *     millisecond, as a fixture file's event value is refused (docs/decisions/0090, 0093),
     *     naming the item, the event, the key and the millisecond to pass, or when a string value
     *     is not storable text (U+0000, a lone surrogate: docs/decisions/0105); the event is not
     *     added
     */
    public Builder event(int partition, Map<String, Object> values) {
      values.forEach(
          (key, value) -> {
            if (value instanceof Instant) {
              checkMillisecond((Instant) value, "event " + (events + 1) + ", key '" + key + "': ");
            }
            if (value instanceof String) {
              checkText((String) value, key);
            }
          });
      given.add(Given.event(0, partition, ++events, new java.util.LinkedHashMap<>(values)));
      return this;
    }

    /**
     * A watermark item on {@code partition}, or on every partition when it is empty.
     *
     * @throws IllegalArgumentException when {@code watermark} is finer than a millisecond, as a
     *     fixture file's is refused (docs/decisions/0090), naming the millisecond to pass. (A
     *     source without {@code event_time} has no watermark items: {@code FixtureStream.compile}
     *     refuses them, as this builder does not know the source.)
     */
    public Builder watermark(Optional<Integer> partition, Instant watermark) {
      checkMillisecond(watermark, "watermark ");
      given.add(Given.watermark(0, partition, watermark));
      return this;
    }

    /**
     * Refuses {@code t}, the next item's instant, when it is finer than a millisecond: the message
     * names the fixture and the item, then {@code what} ("watermark ", "event 2, key 'x': "), then
     * the instant and the millisecond to pass instead.
     */
    private void checkMillisecond(Instant t, String what) {
      try {
        Timestamps.checkMillisecond(t);
      } catch (Timestamps.FinerThanAMillisecond e) {
        throw new IllegalArgumentException(
            "fixture '"
                + name
                + "', given item "
                + (given.size() + 1)
                + ": "
                + what
                + e.getMessage()
                + " — pass Instant.parse(\""
                + e.millisecond()
                + "\") (the instant truncated to ChronoUnit.MILLIS)",
            e);
      }
    }

    /**
     * Refuses the next event's string {@code s} of {@code key} when it is not storable text, as a
     * fixture file's is refused (docs/decisions/0105).
     */
    private void checkText(String s, String key) {
      try {
        dev.streamform.policies.schema.ColumnValues.checkText(s);
      } catch (dev.streamform.policies.schema.ColumnValues.NotText e) {
        throw new IllegalArgumentException(
            "fixture '"
                + name
                + "', given item "
                + (given.size() + 1)
                + ": event "
                + (events + 1)
                + ", key '"
                + key
                + "': "
                + e.getMessage()
                + " — "
                + e.fix(key),
            e);
      }
    }

    public Fixture build() {
      return create(name, Path.of(name + ".yml"), model, given, List.of(), List.of());
    }
  }

  /**
   * Reads and checks {@code file} against {@code project}.
   *
   * @throws InvalidProjectException with every problem, each naming the file and line
   */
  public static Fixture load(Project project, Path file) throws InvalidProjectException {
    return FixtureFile.read(project, file);
  }

  /**
   * Reads and checks {@code file} for a model written in Java: its events go to {@code source} and
   * its {@code expect:} rows are typed by {@code outputColumns}; {@code model:} is a label.
   *
   * @throws InvalidProjectException with every problem, each naming the file and line
   */
  public static Fixture load(
      Path file, SourceDeclaration source, Map<String, ColumnType> outputColumns)
      throws InvalidProjectException {
    return FixtureFile.read(file, source, outputColumns, Optional.empty());
  }

  /**
   * Reads and checks {@code file} for a windowed model written in Java: like {@link #load(Path,
   * SourceDeclaration, Map)}, with rows of a windowed model over {@code window}.
   *
   * @throws InvalidProjectException with every problem, each naming the file and line
   */
  public static Fixture load(
      Path file, SourceDeclaration source, Map<String, ColumnType> outputColumns, WindowSpec window)
      throws InvalidProjectException {
    return FixtureFile.read(file, source, outputColumns, Optional.of(window));
  }

  /**
   * What this fixture of an upsert model asks beyond docs/semantics.md §7, as warnings (not
   * problems): each key — the values of {@code keyColumns}, the query's GROUP BY columns — whose
   * events are given on more than one partition. §7 promises a key's changelog only for keys that
   * live in one partition; a spread key's records come in the order its keyed stage applies them
   * (by each partition's watermark at arrival, then partition), which need not be the order written
   * here. One warning per key, at the line of its first event on a second partition.
   */
  public List<Problem> partitionWarnings(List<String> keyColumns) {
    return partitionWarnings(
        keyColumns,
        "docs/semantics.md §7 promises a key's changelog only for keys that live in one partition;"
            + " this key's records come in the order its partitions' watermarks let them through,"
            + " which may differ from the order written here and between runners");
  }

  /**
   * As {@link #partitionWarnings(List)}, each warning saying {@code promise}: what the contract
   * promises of such a key's outputs, and what may vary (a windowed model's corrections, 6.26).
   */
  public List<Problem> partitionWarnings(List<String> keyColumns, String promise) {
    Map<List<Object>, Given> first = new java.util.LinkedHashMap<>();
    Map<List<Object>, java.util.SortedSet<Integer>> partitions = new java.util.LinkedHashMap<>();
    List<Problem> warnings = new java.util.ArrayList<>();
    String label = DIR_LABEL + file().getFileName();
    for (Given g : given()) {
      if (g.event().isEmpty()) {
        continue;
      }
      List<Object> key = new java.util.ArrayList<>();
      for (String c : keyColumns) {
        Object v = g.event().get().get(c);
        key.add(dev.streamform.policies.schema.ColumnValues.keyByValue(v));
      }
      first.putIfAbsent(key, g);
      java.util.SortedSet<Integer> seen =
          partitions.computeIfAbsent(key, k -> new java.util.TreeSet<>());
      if (seen.add(g.partition()) && seen.size() == 2) {
        StringBuilder k = new StringBuilder();
        for (int i = 0; i < keyColumns.size(); i++) {
          k.append(i == 0 ? "" : " ")
              .append(keyColumns.get(i))
              .append('=')
              .append(
                  dev.streamform.policies.schema.ColumnValues.show(
                      g.event().get().get(keyColumns.get(i))));
        }
        Given at = first.get(key);
        warnings.add(
            Problem.of(
                label,
                g.line(),
                Optional.of("event " + g.eventNumber()),
                Optional.empty(),
                "key "
                    + k
                    + " has events on partitions "
                    + at.partition()
                    + " and "
                    + g.partition()
                    + " (first on line "
                    + at.line()
                    + "): "
                    + promise,
                Optional.of(
                    "give a key's events one partition, unless the fixture is about that")));
      }
    }
    return warnings;
  }

  private static final String DIR_LABEL = FixtureFile.DIR + "/";

  /**
   * The fixture files of the project in folder {@code dir}, {@code fixtures/*.yml} and {@code
   * *.yaml} (any case) in name order, hidden and backup files left out.
   */
  public static List<Path> filesOfFolder(Path dir) {
    return FixtureFile.filesOf(dir);
  }

  /**
   * Whether a file named {@code name} is an editor's swap or backup file or a hidden file ({@code
   * .x.yml.swp}, {@code x.yml~}, {@code #x.yml#}, {@code ._x.yml}): no fixture, and no change that
   * starts a {@code test --watch} run.
   */
  public static boolean isScratchFile(String name) {
    return FixtureFile.isScratch(name);
  }

  /** The fixture files of a project, {@code fixtures/*.yml} in name order. */
  public static List<Path> filesOf(Project project) {
    return FixtureFile.filesOf(project.dir());
  }
}
