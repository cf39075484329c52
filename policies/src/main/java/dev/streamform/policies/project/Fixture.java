package dev.streamform.policies.project;

import com.google.auto.value.AutoValue;
import dev.streamform.policies.declarations.RevisionStatus;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.declarations.WindowSpec;
import dev.streamform.policies.schema.ColumnType;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A fixture of a project ({@code fixtures/<name>.yml}): the items given to a model's source in
 * delivery order, the changelog (or, for a windowed model, the previews, revisions and final
 * records) it must produce and the events it must drop as late. Values are
 * already typed by the source schema and the model's output columns (int64 -> Long, decimal ->
 * BigDecimal, timestamp -> Instant, ...). Read with {@link #load(Project, Path)}.
 */
@AutoValue
public abstract class Fixture {

  /** The file name without {@code .yml}. */
  public abstract String name();

  public abstract Path file();

  public abstract String model();

  public abstract List<Given> given();

  public abstract List<Row> expect();

  public abstract List<Row> late();

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
          line, partition.orElse(0), 0, Optional.empty(), Optional.of(watermark), partition.isEmpty());
    }
  }

  /**
   * One row of {@code expect:} or {@code late:}, with its line. For an upsert model only {@link
   * #values()} is set. For a windowed model (SEMANTICS §6) an {@code expect:} row also has its
   * window, {@link #revision()} and {@link #status()} (always) and the identity fields it gives
   * (optional in fixtures); a {@code late:} row also has its {@link #windowStart()}, the window
   * that refused the event.
   */
  @AutoValue
  public abstract static class Row {
    public abstract int line();

    /**
     * Column -> typed value, in the order written: for an upsert {@code expect:} row {@code op}
     * ("insert" or "update") and the output columns; for a windowed one the key and output
     * columns only; for a {@code late:} row the event's columns.
     */
    public abstract Map<String, Object> values();

    /** The window's start: every row of a windowed model. */
    public abstract Optional<Instant> windowStart();

    /** The window's end (exclusive): every {@code expect:} row of a windowed model. */
    public abstract Optional<Instant> windowEnd();

    /** The revision: 0 for an early preview, 1 and up otherwise; windowed {@code expect:} rows. */
    public abstract Optional<Integer> revision();

    /** early, on_time, corrected or final; windowed {@code expect:} rows. */
    public abstract Optional<RevisionStatus> status();

    /** {@code logical_window_id}, 64 hex digits, when the row gives it. */
    public abstract Optional<String> logicalWindowId();

    /** {@code projection_id}, 64 hex digits, when the row gives it. */
    public abstract Optional<String> projectionId();

    /** {@code predecessor}, the revision this one replaces, when the row gives it. */
    public abstract Optional<Integer> predecessor();

    /** {@code aggregate_digest}, 64 hex digits, when the row gives it. */
    public abstract Optional<String> aggregateDigest();

    /** {@code offsets}: partition -> the offsets of the events included, when the row gives them. */
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

      abstract Builder setStatus(RevisionStatus status);

      abstract Builder setLogicalWindowId(String id);

      abstract Builder setProjectionId(String id);

      abstract Builder setPredecessor(Integer revision);

      abstract Builder setAggregateDigest(String digest);

      abstract Builder setOffsets(Map<Integer, OffsetRange> offsets);

      abstract Row build();
    }
  }

  /**
   * The offsets of one partition's events included in a revision: the smallest, the largest and
   * how many ({@code {min: 0, max: 3, count: 4}}). A fixture event's offset is its position among
   * its partition's items, from 0.
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
    return new AutoValue_Fixture(
        name, file, model, List.copyOf(given), List.copyOf(expect), List.copyOf(late));
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

    /** An event on {@code partition}; absent columns are null. */
    public Builder event(int partition, Map<String, Object> values) {
      given.add(Given.event(0, partition, ++events, new java.util.LinkedHashMap<>(values)));
      return this;
    }

    /** A watermark item on {@code partition}, or on every partition when it is empty. */
    public Builder watermark(Optional<Integer> partition, Instant watermark) {
      given.add(Given.watermark(0, partition, watermark));
      return this;
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
   * Reads and checks {@code file} for a model written in Java: its events go to {@code source}
   * and its {@code expect:} rows are typed by {@code outputColumns}; {@code model:} is a label.
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
  public static Fixture load(Path file, SourceDeclaration source,
      Map<String, ColumnType> outputColumns, WindowSpec window) throws InvalidProjectException {
    return FixtureFile.read(file, source, outputColumns, Optional.of(window));
  }

  /** The fixture files of a project, {@code fixtures/*.yml} in name order. */
  public static List<Path> filesOf(Project project) {
    return FixtureFile.filesOf(project.dir());
  }
}
