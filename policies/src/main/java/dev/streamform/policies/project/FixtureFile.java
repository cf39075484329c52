package dev.streamform.policies.project;

import dev.streamform.core.time.Durations;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.declarations.WindowSpec;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.schema.ColumnValues;
import dev.streamform.policies.sql.ModelSql;
import dev.streamform.policies.sql.SqlModelException;
import dev.streamform.policies.time.Timestamps;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reads a fixture file (docs/semantics.md §4, and §6 for a windowed model's rows) through {@link
 * YamlMap}, typing every value.
 */
final class FixtureFile {
  static final String DIR = "fixtures";
  static final List<String> KEYS =
      List.of(
          "model",
          "description",
          "given",
          "expect",
          "late",
          "duplicates",
          "quarantined",
          "tolerance");
  private static final String GIVEN_EXAMPLE =
      "- event: { customer_id: 42, ordered_at: \""
          + Timestamps.EXAMPLE
          + "\" }  or  - watermark: \""
          + Timestamps.EXAMPLE
          + "\"";

  /** The keys of a windowed model's {@code expect:} row besides its key and output columns. */
  private static final List<String> REVISION_KEYS =
      List.of(
          "revision",
          "status",
          "logical_window_id",
          "projection_id",
          "predecessor",
          "aggregate_digest",
          "offsets");

  private static final List<String> HASH_KEYS =
      List.of("logical_window_id", "projection_id", "aggregate_digest");
  private static final String STATUSES = "early, on_time, corrected or final";

  /**
   * What a fixture's {@code model:} resolves to: the source it feeds, the output columns and, for a
   * windowed model, its windows.
   */
  static final class Target {
    final SourceDeclaration source;
    final Map<String, ColumnType> outputs;
    final Optional<WindowSpec> window;
    final boolean decides;

    Target(SourceDeclaration source, Map<String, ColumnType> outputs, Optional<WindowSpec> window) {
      this(source, outputs, window, false);
    }

    Target(
        SourceDeclaration source,
        Map<String, ColumnType> outputs,
        Optional<WindowSpec> window,
        boolean decides) {
      this.source = source;
      this.outputs = outputs;
      this.window = window;
      this.decides = decides;
    }
  }

  /** Resolves a model name, or reports at {@code model:} why it cannot. */
  interface Models {
    Optional<Target> resolve(String model, YamlMap root);

    /** A model name to suggest when {@code model:} is missing. */
    String example();
  }

  private final Models models;
  private final Path file;
  private final String label;
  private final List<Problem> problems = new ArrayList<>();

  private FixtureFile(Models models, Path file, Path dir) {
    this.models = models;
    this.file = file;
    // relative to the project folder however either was given (relative, "./", absolute)
    Path absolute = file.toAbsolutePath().normalize();
    Path folder = dir == null ? null : dir.toAbsolutePath().normalize();
    Path rel = folder != null && absolute.startsWith(folder) ? folder.relativize(absolute) : file;
    this.label = rel.toString();
  }

  /**
   * The fixture files of the project in {@code dir}, in name order: the regular files of {@code
   * fixtures/} named {@code *.yml} or {@code *.yaml}, in any case ({@code .YML} too), except hidden
   * files and editors' backups ({@link #isScratch}), which do not start a {@code --watch} run
   * either. A named pipe or a folder named {@code x.yml} is no fixture (reading a pipe would wait).
   */
  static List<Path> filesOf(Path dir) {
    return filesIn(dir.resolve(DIR));
  }

  /** The fixture files of the folder {@code fixtures} itself, as {@link #filesOf} finds them. */
  static List<Path> filesIn(Path fixtures) {
    if (!Files.isDirectory(fixtures)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(fixtures)) {
      return files.filter(FixtureFile::isFixture).sorted().collect(Collectors.toList());
    } catch (IOException e) {
      return List.of();
    }
  }

  /** A regular file named {@code *.yml} or {@code *.yaml} (any case) that is no scratch file. */
  static boolean isFixture(Path file) {
    String name = file.getFileName().toString();
    return EXTENSION.matcher(name).find() && !isScratch(name) && Files.isRegularFile(file);
  }

  /** Whether {@code name} ends in {@code .yml} or {@code .yaml}, in any case. */
  static boolean hasFixtureExtension(String name) {
    return EXTENSION.matcher(name).find();
  }

  /** {@code .yml} or {@code .yaml} at the end of a name, in any case. */
  private static final java.util.regex.Pattern EXTENSION =
      java.util.regex.Pattern.compile("\\.ya?ml$", java.util.regex.Pattern.CASE_INSENSITIVE);

  /**
   * An editor's swap or backup file, or any hidden file (vim's {@code .x.yml.swp}, emacs's {@code
   * x.yml~} and {@code #x.yml#}, macOS's {@code ._x.yml}, a {@code .old_copy.yml}): no fixture, and
   * no reason for {@code test --watch} to run again.
   */
  public static boolean isScratch(String name) {
    return name.startsWith(".")
        || name.endsWith("~")
        || name.length() > 1 && name.startsWith("#") && name.endsWith("#");
  }

  /** A fixture's name: its file name without {@code .yml} or {@code .yaml}, in any case. */
  static String nameOf(Path file) {
    return EXTENSION.matcher(file.getFileName().toString()).replaceFirst("");
  }

  /**
   * A fixture file earlier in name order in the same folder with the same fixture name ({@code
   * x.yaml} before {@code x.yml}): both would run as fixture {@code x}.
   */
  private static Optional<Path> sameName(Path file) {
    Path folder = file.toAbsolutePath().getParent();
    if (folder == null || !Files.isDirectory(folder)) {
      return Optional.empty();
    }
    String name = nameOf(file);
    String own = file.getFileName().toString();
    try (Stream<Path> files = Files.list(folder)) {
      return files
          .filter(f -> !f.getFileName().toString().equals(own))
          .filter(f -> f.getFileName().toString().compareTo(own) < 0)
          .filter(FixtureFile::isFixture)
          .filter(f -> nameOf(f).equals(name))
          .sorted()
          .findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  static Fixture read(Project project, Path file) throws InvalidProjectException {
    Models models =
        new Models() {
          @Override
          public Optional<Target> resolve(String m, YamlMap root) {
            ModelDeclaration found = project.models().get(m);
            if (found == null) {
              root.report(
                  "model",
                  "no model named '" + m + "' in streamform.yml",
                  "use one of: " + String.join(", ", project.models().keySet()));
              return Optional.empty();
            }
            SourceDeclaration source = project.sourceOf(found);
            return Optional.of(
                new Target(source, outputsOf(found, source), found.window(), found.decides()));
          }

          @Override
          public String example() {
            return project.models().keySet().stream().findFirst().orElse("customer_metrics");
          }
        };
    return new FixtureFile(models, file, project.dir()).read();
  }

  /**
   * Reads a fixture whose events go to {@code source} and whose model emits {@code outputs}, over
   * {@code window} when it is windowed.
   */
  static Fixture read(
      Path file,
      SourceDeclaration source,
      Map<String, ColumnType> outputs,
      Optional<WindowSpec> window)
      throws InvalidProjectException {
    Models models =
        new Models() {
          @Override
          public Optional<Target> resolve(String m, YamlMap root) {
            return Optional.of(new Target(source, outputs, window));
          }

          @Override
          public String example() {
            return "my_model";
          }
        };
    return new FixtureFile(models, file, null).read();
  }

  private Fixture read() throws InvalidProjectException {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new InvalidProjectException(List.of(NotUtf8.problem(file, label)));
    } catch (IOException e) {
      throw new InvalidProjectException(
          List.of(
              Problem.ofFile(
                  label,
                  FileErrors.cannotRead(e),
                  FileErrors.fix(
                      e,
                      "check the fixture's path",
                      "check that the fixture file exists and is readable"))));
    }
    Optional<Path> other = sameName(file);
    if (other.isPresent()) {
      Path shown =
          label.contains("/")
              ? Path.of(label).resolveSibling(other.get().getFileName())
              : other.get().getFileName();
      throw new InvalidProjectException(
          List.of(
              Problem.ofFile(
                  label,
                  "is fixture '"
                      + nameOf(file)
                      + "', as "
                      + shown
                      + " is: a fixture's name is its file name without .yml or .yaml",
                  "rename one of them, or remove one")));
    }
    Optional<YamlMap> top = YamlMap.parseFile(label, text, "model: <model name>", problems);
    if (top.isEmpty()) {
      throw new InvalidProjectException(problems);
    }
    YamlMap root = top.get();
    root.allowOnly(KEYS);
    String name = nameOf(file);
    Optional<String> modelName = root.string("model", "model: <model name>");
    if (!root.has("model")) {
      root.reportMissing("model", "name the model under test, e.g. model: " + models.example());
    }
    if (!root.has("given")) {
      root.reportMissing("given", "list the delivered items, e.g. " + GIVEN_EXAMPLE);
    } else if (root.hasNoValue("given")) {
      // given: or given: ~ would run no event and pass whatever expect: says nothing about
      root.report("given", "has no value", "list the delivered items, e.g. " + GIVEN_EXAMPLE);
    }
    Optional<Target> target = modelName.flatMap(m -> models.resolve(m, root));
    List<Fixture.Given> given = new ArrayList<>();
    List<Fixture.Row> expect = new ArrayList<>();
    List<Fixture.Row> late = new ArrayList<>();
    List<Fixture.Row> quarantined = new ArrayList<>();
    List<Fixture.Row> duplicates = new ArrayList<>();
    if (target.isPresent()) {
      SourceDeclaration source = target.get().source;
      Map<String, ColumnType> outputs = target.get().outputs;
      Optional<WindowSpec> window = target.get().window;
      readGiven(root, source, given);
      String expectExample =
          window.isPresent()
              ? "- { window_start: \""
                  + Timestamps.EXAMPLE
                  + "\", window_end: ..., "
                  + String.join(": ..., ", outputs.keySet())
                  + ": ..., revision: 1, status: on_time }"
              : "- { op: insert, " + String.join(": ..., ", outputs.keySet()) + ": ... }";
      if (target.get().decides) {
        expectExample =
            "- { route: scored, "
                + String.join(": ..., ", source.schema().keySet())
                + ": ..., score: 0.5 }";
      }
      for (YamlMap row : root.mapList("expect", i -> "expect row " + i, expectExample)) {
        (target.get().decides
                ? decisionRow(row, modelName.get(), source, outputs)
                : window.isPresent()
                    ? windowedExpectRow(row, modelName.get(), outputs, window.get())
                    : expectRow(row, modelName.get(), outputs))
            .ifPresent(expect::add);
      }
      String lateExample =
          "- { "
              + String.join(": ..., ", source.schema().keySet())
              + ": ..."
              + (window.isPresent() ? ", window_start: ..." : "")
              + " }";
      if (root.has("late") && source.eventTime().isEmpty()) {
        // processing time: nothing is ever late (§1), so a listed row could never match
        root.report(
            "late",
            "source '" + source.name() + "' declares no event_time, so no event is ever late",
            "remove late:, or " + declareEventTime(source));
      } else {
        for (YamlMap row : root.mapList("late", i -> "late row " + i, lateExample)) {
          (window.isPresent()
                  ? windowedLateRow(row, source, window.get())
                  : typedRow(row, source.schema()).map(v -> Fixture.Row.of(row.line(), v)))
              .ifPresent(late::add);
        }
      }
      String duplicateExample =
          "- { " + String.join(": ..., ", source.schema().keySet()) + ": ... }";
      if (root.has("duplicates") && source.eventId().isEmpty()) {
        root.report(
            "duplicates",
            "source '"
                + source.name()
                + "' declares no event_id, so no event"
                + " is ever dropped as a duplicate",
            "declare event_id: <column that identifies an event> on source '"
                + source.name()
                + "' in sources.yml, or remove duplicates:");
      } else {
        for (YamlMap row :
            root.mapList("duplicates", i -> "duplicates row " + i, duplicateExample)) {
          typedRow(row, source.schema())
              .map(v -> Fixture.Row.of(row.line(), v))
              .ifPresent(duplicates::add);
        }
      }
      Map<String, ColumnType> quarantineColumns = new LinkedHashMap<>(source.schema());
      quarantineColumns.putIfAbsent("reason", ColumnType.STRING);
      for (YamlMap row :
          root.mapList(
              "quarantined",
              i -> "quarantined row " + i,
              "- { "
                  + String.join(": ..., ", source.schema().keySet())
                  + ": ..., reason: \"no value\" }")) {
        typedRow(row, quarantineColumns)
            .map(v -> Fixture.Row.of(row.line(), v))
            .ifPresent(quarantined::add);
      }
      if (target.get().decides) {
        refuseOutsideExpect(root, "late", late, "revising", "a late event is a row of its route");
        refuseOutsideExpect(
            root,
            "quarantined",
            quarantined,
            "dead_lettered, reason: no_key_value",
            "a quarantined event is a dead_lettered row, which may give its reason");
      }
    }
    Optional<Double> tolerance =
        root.typedScalar("tolerance", "tolerance: 1e-9")
            .flatMap(
                t -> {
                  Object v = t.getValue();
                  double d = v instanceof Number ? ((Number) v).doubleValue() : Double.NaN;
                  if (v instanceof String) {
                    try {
                      d = Double.parseDouble((String) v);
                    } catch (NumberFormatException e) {
                      d = Double.NaN;
                    }
                  }
                  if (!(d >= 0) || Double.isInfinite(d)) {
                    root.report(
                        "tolerance",
                        "'" + t.getKey() + "' is not a tolerance",
                        "write a number from 0, e.g. tolerance: 1e-9 (how far a double column may"
                            + " be from the value a row expects, relative above 1)");
                    return Optional.empty();
                  }
                  return Optional.of(d);
                });
    if (!problems.isEmpty()) {
      throw new InvalidProjectException(problems);
    }
    return Fixture.create(
        name, file, modelName.get(), given, expect, late, quarantined, duplicates, tolerance);
  }

  /**
   * A scoring model's fixture lists its late and quarantined events under {@code expect:}, as
   * routed rows in delivery order (docs/guides/scoring-models.md): rows under {@code section} are
   * refused at the section, with the row to write instead (ADR 0176). An empty list is left alone.
   */
  private static void refuseOutsideExpect(
      YamlMap root, String section, List<Fixture.Row> rows, String route, String what) {
    if (rows.isEmpty()) {
      return;
    }
    root.report(
        section,
        "a scoring model's fixture lists its events by route under expect:, in delivery order ("
            + what
            + "), so "
            + section
            + ": rows are never compared",
        "move each row to expect:, e.g. - { event: <its number>, route: "
            + route
            + " }, and remove "
            + section
            + ":");
  }

  private static Map<String, ColumnType> outputsOf(
      ModelDeclaration model, SourceDeclaration source) {
    try {
      return ModelSql.parse(model.sql()).outputColumns(source.schema());
    } catch (SqlModelException e) {
      throw new IllegalStateException("model " + model.name() + " was checked already", e);
    }
  }

  private void readGiven(YamlMap root, SourceDeclaration source, List<Fixture.Given> given) {
    int events = 0;
    for (YamlMap item : root.mapList("given", i -> "given item " + i, GIVEN_EXAMPLE)) {
      item.allowOnly(List.of("event", "watermark", "partition"));
      Optional<Integer> partition =
          item.typedScalar("partition", "partition: 0")
              .flatMap(
                  p -> {
                    if (p.getValue() instanceof Long
                        && (Long) p.getValue() >= 0
                        && (Long) p.getValue() < 1 << 16) {
                      return Optional.of(((Long) p.getValue()).intValue());
                    }
                    item.report(
                        "partition",
                        "'" + p.getKey() + "' is not a partition number",
                        "write a whole number from 0 to 65535, e.g. partition: 1");
                    return Optional.empty();
                  });
      boolean isEvent = item.has("event");
      if (isEvent == item.has("watermark")) {
        item.reportHere(
            isEvent ? "has both event: and watermark:" : "has neither event: nor watermark:",
            "write one item per line: " + GIVEN_EXAMPLE);
        continue;
      }
      if (isEvent) {
        events++;
        int number = events;
        Optional<YamlMap> values =
            item.map("event", Optional.of("event " + number), "event: { column: value, ... }");
        values
            .flatMap(v -> typedRow(v, source.schema()))
            .ifPresent(
                v -> given.add(Fixture.Given.event(item.line(), partition.orElse(0), number, v)));
      } else if (source.eventTime().isEmpty()) {
        // processing time has no watermark (§1): the item would be accepted and do nothing
        item.report(
            "watermark",
            "source '"
                + source.name()
                + "' declares no event_time, so a watermark item has no meaning",
            "remove it, or " + declareEventTime(source));
      } else {
        item.typedScalar("watermark", "watermark: \"" + Timestamps.EXAMPLE + "\"")
            .ifPresent(
                w -> {
                  try {
                    Instant at = Timestamps.parse(w.getValue(), w.getKey());
                    given.add(Fixture.Given.watermark(item.line(), partition, at));
                  } catch (Timestamps.FinerThanAMillisecond e) {
                    item.report("watermark", e.getMessage(), e.fix("watermark"));
                  } catch (IllegalArgumentException e) {
                    item.report(
                        "watermark",
                        e.getMessage(),
                        "write watermark: \"" + Timestamps.EXAMPLE + "\"");
                  }
                });
      }
    }
  }

  private static String declareEventTime(SourceDeclaration source) {
    return "declare event_time: <timestamp column> on source '"
        + source.name()
        + "' in sources.yml";
  }

  private Optional<Fixture.Row> expectRow(
      YamlMap row, String model, Map<String, ColumnType> outputs) {
    Map<String, ColumnType> columns = new LinkedHashMap<>();
    columns.put("op", ColumnType.STRING);
    columns.putAll(outputs);
    Optional<Map<String, Object>> values = typedRow(row, columns);
    if (values.isEmpty()) {
      return Optional.empty();
    }
    Object op = values.get().get("op");
    if (!"insert".equals(op) && !"update".equals(op)) {
      row.report(
          "op",
          op == null ? "is missing" : "'" + op + "' is not insert or update",
          "write op: insert (first record of a key) or op: update");
      return Optional.empty();
    }
    List<String> missing =
        outputs.keySet().stream().filter(c -> !row.has(c)).collect(Collectors.toList());
    if (!missing.isEmpty()) {
      row.reportHere(
          "does not give "
              + missing.stream().map(c -> "`" + c + "`").collect(Collectors.joining(", ")),
          "list every output column of the model: op, " + String.join(", ", outputs.keySet()));
      return Optional.empty();
    }
    return Optional.of(Fixture.Row.of(row.line(), values.get()));
  }

  /**
   * What a scoring model's {@code expect:} row may give besides the source's columns and features.
   */
  private static final Map<String, ColumnType> DECISION_KEYS =
      Map.of(
          "route",
          ColumnType.STRING,
          "score",
          ColumnType.DOUBLE,
          "revision",
          ColumnType.INT64,
          "state_revision",
          ColumnType.INT64,
          "event",
          ColumnType.INT64,
          "reason",
          ColumnType.STRING);

  private static final List<String> ROUTES =
      List.of("scored", "revised", "revising", "reconciled", "ignored", "dead_lettered");

  /**
   * A scoring model's {@code expect:} row: its {@code route} (scored, revised, revising — a late
   * event that revised decisions —, reconciled, ignored or dead_lettered), the event's columns that
   * identify it, and optionally {@code score}, feature values, {@code revision} and {@code
   * state_revision}. The row's own keys ({@link Fixture#DECISION_ROW_KEYS}) always mean themselves;
   * any source column may also be given by its source's name, {@code <source>.<column>}, which is
   * how a column named like one of the row's own keys is given (ADR 0174).
   */
  private Optional<Fixture.Row> decisionRow(
      YamlMap row, String model, SourceDeclaration source, Map<String, ColumnType> features) {
    Map<String, ColumnType> columns = new LinkedHashMap<>(DECISION_KEYS);
    source.schema().forEach(columns::putIfAbsent);
    features.forEach(columns::putIfAbsent);
    source.schema().forEach((column, type) -> columns.put(source.name() + "." + column, type));
    Optional<Map<String, Object>> values = typedRow(row, columns);
    if (values.isEmpty()) {
      return Optional.empty();
    }
    Object route = values.get().get("route");
    if (!ROUTES.contains(route)) {
      row.report(
          "route",
          route == null ? "is missing" : "'" + route + "' is not a route",
          "write route: one of " + String.join(", ", ROUTES));
      return Optional.empty();
    }
    return Optional.of(Fixture.Row.of(row.line(), values.get()));
  }

  /** {@code window_end: "<end>"} of the window that starts at {@code start}, as a row writes it. */
  private static String windowEnd(WindowSpec window, Instant start) {
    return "window_end: \"" + Timestamps.format(window.endOf(start)) + "\"";
  }

  /** How a row's window_end follows from its window_start, for a suggestion. */
  private static String endRule(WindowSpec window) {
    return window.isCalendar()
        ? "the end of the window that starts at window_start"
        : "window_start + " + Durations.format(window.size());
  }

  /**
   * A windowed model's {@code expect:} row: {@code window_start}, {@code window_end}, the key and
   * output columns, {@code revision} and {@code status}, and optionally the identity fields.
   */
  private Optional<Fixture.Row> windowedExpectRow(
      YamlMap row, String model, Map<String, ColumnType> outputs, WindowSpec window) {
    int before = problems.size();
    if (row.has("op")) {
      row.report(
          "op",
          "op belongs to fixtures of upsert models; a row of windowed model '"
              + model
              + "' says its revision and status instead",
          "remove op and give revision: <0 for early, 1, 2, ...> and status: " + STATUSES);
    }
    Map<String, ColumnType> bounds =
        Map.of("window_start", ColumnType.TIMESTAMP, "window_end", ColumnType.TIMESTAMP);
    Map<String, ColumnType> hashes = new LinkedHashMap<>();
    HASH_KEYS.forEach(k -> hashes.put(k, ColumnType.STRING));
    List<String> known = new ArrayList<>(List.of("window_start", "window_end"));
    if (window.isCalendar()) {
      known.add("window_local"); // the local date, for the reader; checked against window_start
    }
    known.addAll(outputs.keySet());
    known.addAll(REVISION_KEYS);
    row.allowOnly(known, List.of("op"));
    Optional<String> local =
        window.isCalendar()
            ? row.string("window_local", "window_local: 2026-10-25")
            : Optional.empty();
    Map<String, Object> values = new LinkedHashMap<>();
    typedValues(row, bounds).ifPresent(values::putAll);
    typedValues(row, outputs).ifPresent(values::putAll);
    typedValues(row, hashes).ifPresent(values::putAll);
    List<String> notNull = new ArrayList<>(bounds.keySet());
    notNull.addAll(HASH_KEYS);
    refuseNulls(row, values, notNull);

    Fixture.Row.Builder b = Fixture.Row.builder(row.line(), new LinkedHashMap<>());
    Optional<Instant> start = Optional.ofNullable((Instant) values.remove("window_start"));
    Optional<Instant> end = Optional.ofNullable((Instant) values.remove("window_end"));
    if (!row.has("window_start")) {
      row.reportMissing(
          "window_start",
          "add window_start: \""
              + Timestamps.EXAMPLE
              + "\" (a timestamp), the start of the row's window");
    }
    if (!row.has("window_end")) {
      // with a window's start given, its end is known: suggest it, not a value check refuses
      row.reportMissing(
          "window_end",
          "add "
              + start
                  .filter(window::isStart)
                  .map(s -> windowEnd(window, s) + " (" + endRule(window) + ")")
                  .orElse("window_end: \"" + Timestamps.EXAMPLE + "\" (a timestamp)")
              + ", the end (exclusive) of the row's window");
    }
    checkWindowStart(row, start, window, model);
    start.ifPresent(
        s ->
            end.ifPresent(
                e -> {
                  if (window.isStart(s) && !e.equals(window.endOf(s))) {
                    row.report(
                        "window_end",
                        "'"
                            + Timestamps.format(e)
                            + "' is not "
                            + endRule(window)
                            + (window.isCalendar()
                                ? " (model '" + model + "''s windows: " + window.describe() + ")"
                                : " (the size of model '" + model + "''s windows)"),
                        "write " + windowEnd(window, s));
                  }
                }));
    start
        .filter(window::isStart)
        .ifPresent(
            s ->
                local.ifPresent(
                    l -> {
                      String want = window.localLabel(s).get();
                      if (!l.trim().equals(want)) {
                        String firstDay = s.atZone(window.zoneOrUtc()).toLocalDate().toString();
                        row.report(
                            "window_local",
                            "'"
                                + l
                                + (l.trim().equals(firstDay)
                                    // the month's first day: right date, a month's form is YYYY-MM
                                    ? "' is the local date of window_start, but a month's"
                                        + " window_local is the month, YYYY-MM, in "
                                    : "' is not the local date of window_start in ")
                                + window.zoneOrUtc().getId()
                                + " (model '"
                                + model
                                + "''s windows: "
                                + window.describe()
                                + ")",
                            "write window_local: " + want);
                      }
                    }));
    start.ifPresent(b::setWindowStart);
    end.ifPresent(b::setWindowEnd);
    for (String key : HASH_KEYS) {
      Object id = values.remove(key);
      if (id == null) {
        continue;
      }
      if (!id.toString().matches("[0-9a-f]{64}")) {
        row.report(
            key,
            "'" + id + "' is not a SHA-256 digest (64 hex digits, 0-9 and a-f)",
            "copy it from the output, or leave "
                + key
                + " out (identity fields are optional in fixtures)");
      } else if (key.equals("logical_window_id")) {
        b.setLogicalWindowId(id.toString());
      } else if (key.equals("projection_id")) {
        b.setProjectionId(id.toString());
      } else {
        b.setAggregateDigest(id.toString());
      }
    }

    Optional<Integer> revision =
        wholeNumber(
            row,
            "revision",
            0,
            "write a whole number from 0: 0 for an early preview, 1 for the first revision, 2,"
                + " ...");
    if (!row.has("revision")) {
      row.reportMissing(
          "revision", "add revision: 0 for an early preview, 1 for the first revision, 2, ...");
    }
    Optional<WindowStatus> status = status(row);
    if (!row.has("status")) {
      row.reportMissing("status", "add status: " + STATUSES);
    }
    revision.ifPresent(b::setRevision);
    status.ifPresent(b::setStatus);
    revision.ifPresent(
        n ->
            status.ifPresent(
                st -> {
                  boolean early = st == WindowStatus.EARLY;
                  if (early != (n == 0) || (st == WindowStatus.ON_TIME && n != 1)) {
                    row.report(
                        "revision",
                        "status "
                            + st.yamlName()
                            + " has revision "
                            + (early ? "0" : st == WindowStatus.ON_TIME ? "1" : "1 or more")
                            + ", not "
                            + n,
                        early
                            ? "write revision: 0 (a preview is not a revision)"
                            : st == WindowStatus.ON_TIME
                                ? "write revision: 1 (on_time is always the first revision)"
                                : "write the revision's number, from 1");
                  }
                }));
    wholeNumber(
            row, "predecessor", 1, "write the revision this one replaces, a whole number from 1")
        .ifPresent(b::setPredecessor);
    offsets(row).ifPresent(b::setOffsets);

    List<String> missing =
        outputs.keySet().stream().filter(c -> !row.has(c)).collect(Collectors.toList());
    if (!missing.isEmpty()) {
      row.reportHere(
          "does not give "
              + missing.stream().map(c -> "`" + c + "`").collect(Collectors.joining(", ")),
          "list every output column of the model: window_start, window_end, "
              + String.join(", ", outputs.keySet())
              + ", revision, status");
    }
    if (problems.size() > before) {
      return Optional.empty();
    }
    return Optional.of(b.setValues(values).build());
  }

  /** A windowed model's {@code late:} row: the refused event's columns and {@code window_start}. */
  private Optional<Fixture.Row> windowedLateRow(
      YamlMap row, SourceDeclaration source, WindowSpec window) {
    int before = problems.size();
    Map<String, ColumnType> columns = new LinkedHashMap<>(source.schema());
    columns.put("window_start", ColumnType.TIMESTAMP);
    Optional<Map<String, Object>> values = typedRow(row, columns);
    if (!row.has("window_start")) {
      row.reportMissing(
          "window_start",
          "add window_start: the start of the window that refused the"
              + " event (one late row per refused window)");
    }
    if (values.isEmpty() || problems.size() > before) {
      return Optional.empty();
    }
    refuseNulls(row, values.get(), List.of("window_start"));
    Map<String, Object> event = new LinkedHashMap<>(values.get());
    Optional<Instant> start = Optional.ofNullable((Instant) event.remove("window_start"));
    checkWindowStart(row, start, window, null);
    if (problems.size() > before) {
      return Optional.empty();
    }
    Fixture.Row.Builder b = Fixture.Row.builder(row.line(), event);
    start.ifPresent(b::setWindowStart);
    return Optional.of(b.build());
  }

  /** Reports each of {@code keys} that the row gives with an empty value (null). */
  private static void refuseNulls(YamlMap row, Map<String, Object> values, List<String> keys) {
    for (String key : keys) {
      if (values.containsKey(key) && values.get(key) == null) {
        row.report(
            key,
            "has no value",
            HASH_KEYS.contains(key)
                ? "give the digest, or leave "
                    + key
                    + " out (identity fields are optional in fixtures)"
                : "give the window's "
                    + (key.equals("window_end") ? "end" : "start")
                    + " as a timestamp, e.g. "
                    + key
                    + ": \""
                    + Timestamps.EXAMPLE
                    + "\"");
      }
    }
  }

  /** Reports a {@code window_start} that is not the start of one of {@code window}'s windows. */
  private static void checkWindowStart(
      YamlMap row, Optional<Instant> start, WindowSpec window, String model) {
    start
        .filter(s -> !window.isStart(s))
        .ifPresent(
            s ->
                row.report(
                    "window_start",
                    "'"
                        + Timestamps.format(s)
                        + "' is not the start of a window: "
                        + (model == null ? "the model's" : "model '" + model + "''s")
                        + " windows ("
                        + window.describe()
                        + ") start "
                        + (window.isCalendar()
                            ? "at local midnight in " + window.zoneOrUtc().getId()
                            : "at multiples of "
                                + Durations.format(window.every())
                                + " from the epoch, UTC"),
                    "write the start of a window, e.g. window_start: \""
                        + Timestamps.format(
                            window.startsContaining(s).get(window.startsContaining(s).size() - 1))
                        + "\""));
  }

  /**
   * {@code key}'s value as a whole number from {@code min}; empty when absent or bad (reported).
   */
  private static Optional<Integer> wholeNumber(YamlMap row, String key, int min, String fix) {
    return row.typedScalar(key, key + ": " + Math.max(min, 1))
        .flatMap(
            raw -> {
              String text = raw.getKey().trim();
              if ((raw.getValue() instanceof Long || raw.getValue() instanceof String)
                  && text.matches("\\d{1,9}")
                  && Integer.parseInt(text) >= min) {
                return Optional.of(Integer.parseInt(text));
              }
              row.report(key, "'" + raw.getKey() + "' is not a whole number from " + min, fix);
              return Optional.empty();
            });
  }

  private static Optional<WindowStatus> status(YamlMap row) {
    return row.string("status", "status: on_time")
        .flatMap(
            text -> {
              for (WindowStatus st : WindowStatus.values()) {
                if (st.yamlName().equals(text.trim())) {
                  return Optional.of(st);
                }
              }
              List<String> names = new ArrayList<>();
              for (WindowStatus st : WindowStatus.values()) {
                names.add(st.yamlName());
              }
              row.report(
                  "status",
                  "'" + text + "' is not " + STATUSES,
                  Names.closest(text.trim(), names)
                          .map(c -> "did you mean '" + c + "'? ")
                          .orElse("")
                      + "write status: "
                      + STATUSES);
              return Optional.empty();
            });
  }

  /** {@code offsets: {<partition>: {min: 0, max: 3, count: 4}, ...}}; empty when absent or bad. */
  private Optional<Map<Integer, Fixture.OffsetRange>> offsets(YamlMap row) {
    String example = "offsets: {0: {min: 0, max: 3, count: 4}}";
    Optional<YamlMap> all = row.nested("offsets", example);
    if (all.isEmpty()) {
      return Optional.empty();
    }
    int before = problems.size();
    Map<Integer, Fixture.OffsetRange> offsets = new TreeMap<>();
    for (String partition : all.get().keys()) {
      if (!partition.matches("\\d{1,5}") || Integer.parseInt(partition) >= 1 << 16) {
        all.get()
            .report(
                partition,
                "'" + partition + "' is not a partition number",
                "key each partition's offsets by its number, e.g. " + example);
        continue;
      }
      all.get()
          .nested(partition, example)
          .ifPresent(
              range -> {
                range.allowOnly(List.of("min", "max", "count"));
                Map<String, Long> v = new LinkedHashMap<>();
                for (String key : List.of("min", "max", "count")) {
                  if (!range.has(key)) {
                    range.reportMissing(key, "give min, max and count, e.g. " + example);
                  }
                  wholeNumber(
                          range,
                          key,
                          key.equals("count") ? 1 : 0,
                          key.equals("count")
                              ? "write how many events, from 1"
                              : "write an offset, from 0")
                      .ifPresent(n -> v.put(key, (long) n));
                }
                if (v.size() == 3) {
                  if (v.get("min") > v.get("max")
                      || v.get("count") > v.get("max") - v.get("min") + 1) {
                    range.reportHere(
                        "min "
                            + v.get("min")
                            + ", max "
                            + v.get("max")
                            + " and count "
                            + v.get("count")
                            + " cannot all hold",
                        "give the smallest and largest offset of the events included and how many"
                            + " they are");
                  } else {
                    offsets.put(
                        Integer.parseInt(partition),
                        Fixture.OffsetRange.of(v.get("min"), v.get("max"), v.get("count")));
                  }
                }
              });
    }
    return problems.size() > before ? Optional.empty() : Optional.of(offsets);
  }

  /** The row's values typed by {@code columns}; unknown columns and bad values are problems. */
  private Optional<Map<String, Object>> typedRow(YamlMap row, Map<String, ColumnType> columns) {
    row.allowOnly(columns.keySet());
    boolean known = columns.keySet().containsAll(row.keys());
    return typedValues(row, columns).filter(v -> known);
  }

  /** The values of the row's keys that {@code columns} names, typed; bad values are problems. */
  private Optional<Map<String, Object>> typedValues(YamlMap row, Map<String, ColumnType> columns) {
    Map<String, Object> values = new LinkedHashMap<>();
    boolean ok = true;
    for (String key : row.keys()) {
      ColumnType type = columns.get(key);
      if (type == null) {
        continue;
      }
      Optional<Map.Entry<String, Object>> raw = row.typedScalar(key, key + ": <" + type + ">");
      if (raw.isEmpty()) {
        ok = false;
        continue;
      }
      Object typed = asWritten(type, raw.get());
      try {
        values.put(key, ColumnValues.convert(type, typed, raw.get().getKey()));
      } catch (RuntimeException e) {
        // any failure typing one value is a problem at its line, never a stack trace
        row.report(
            key,
            e instanceof IllegalArgumentException
                ? e.getMessage() // quoting the value as written: raw.get().getKey()
                : "'" + raw.get().getKey() + "' cannot be read as " + type + " (" + e + ")",
            e instanceof Timestamps.FinerThanAMillisecond
                ? ((Timestamps.FinerThanAMillisecond) e).fix(key)
                : e instanceof ColumnValues.NotText
                    ? ((ColumnValues.NotText) e).fix(key)
                    : e instanceof ColumnValues.NotFinite
                        ? ((ColumnValues.NotFinite) e).fix(key)
                        : "give " + key + " " + type.withArticle() + " value");
        ok = false;
      }
    }
    return ok ? Optional.of(values) : Optional.empty();
  }

  /**
   * The value a fixture gives a column of {@code type}: for a string column the scalar as written
   * (docs/decisions/0130) — YAML 1.1 would read an unquoted {@code NO} as false and {@code 0150} as
   * 150, yet a string column holds text, as the same value read from a file does —, an empty value
   * ({@code ~}, {@code null}) staying none; for other columns the value as YAML typed it.
   */
  private static Object asWritten(ColumnType type, Map.Entry<String, Object> raw) {
    return raw.getValue() != null && type.kind() == ColumnType.Kind.STRING
        ? raw.getKey()
        : raw.getValue();
  }
}
