package dev.streamform.policies.project;

import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
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
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Reads a fixture file (SEMANTICS §4) through {@link YamlMap}, typing every value. */
final class FixtureFile {
  static final String DIR = "fixtures";
  private static final List<String> KEYS = List.of("model", "description", "given", "expect", "late");
  private static final String GIVEN_EXAMPLE =
      "- event: { customer_id: 42, ordered_at: \"" + Timestamps.EXAMPLE + "\" }  or  - watermark: \""
          + Timestamps.EXAMPLE + "\"";

  /** What a fixture's {@code model:} resolves to: the source it feeds and the output columns. */
  static final class Target {
    final SourceDeclaration source;
    final Map<String, ColumnType> outputs;

    Target(SourceDeclaration source, Map<String, ColumnType> outputs) {
      this.source = source;
      this.outputs = outputs;
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
    Path rel = dir != null && file.isAbsolute() && file.startsWith(dir.toAbsolutePath())
        ? dir.toAbsolutePath().relativize(file) : file;
    this.label = rel.toString();
  }

  static List<Path> filesOf(Path dir) {
    Path fixtures = dir.resolve(DIR);
    if (!Files.isDirectory(fixtures)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(fixtures)) {
      return files
          .filter(f -> f.getFileName().toString().matches(".*\\.ya?ml"))
          .sorted()
          .collect(Collectors.toList());
    } catch (IOException e) {
      return List.of();
    }
  }

  static Fixture read(Project project, Path file) throws InvalidProjectException {
    Models models = new Models() {
      @Override
      public Optional<Target> resolve(String m, YamlMap root) {
        ModelDeclaration found = project.models().get(m);
        if (found == null) {
          root.report("model", "no model named '" + m + "' in streamform.yml",
              "use one of: " + String.join(", ", project.models().keySet()));
          return Optional.empty();
        }
        SourceDeclaration source = project.sourceOf(found);
        return Optional.of(new Target(source, outputsOf(found, source)));
      }

      @Override
      public String example() {
        return project.models().keySet().stream().findFirst().orElse("customer_metrics");
      }
    };
    return new FixtureFile(models, file, project.dir()).read();
  }

  /** Reads a fixture whose events go to {@code source} and whose model emits {@code outputs}. */
  static Fixture read(Path file, SourceDeclaration source, Map<String, ColumnType> outputs)
      throws InvalidProjectException {
    Models models = new Models() {
      @Override
      public Optional<Target> resolve(String m, YamlMap root) {
        return Optional.of(new Target(source, outputs));
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
    } catch (IOException e) {
      throw new InvalidProjectException(List.of(Problem.ofFile(label, "cannot be read: " + e.getMessage(),
          "check that the fixture file exists and is readable")));
    }
    Optional<YamlMap> top = YamlMap.parseFile(label, text, "model: <model name>", problems);
    if (top.isEmpty()) {
      throw new InvalidProjectException(problems);
    }
    YamlMap root = top.get();
    root.allowOnly(KEYS);
    String name = file.getFileName().toString().replaceFirst("\\.ya?ml$", "");
    Optional<String> modelName = root.string("model", "model: <model name>");
    if (!root.has("model")) {
      root.reportMissing("model", "name the model under test, e.g. model: " + models.example());
    }
    if (!root.has("given")) {
      root.reportMissing("given", "list the delivered items, e.g. " + GIVEN_EXAMPLE);
    }
    Optional<Target> target = modelName.flatMap(m -> models.resolve(m, root));
    List<Fixture.Given> given = new ArrayList<>();
    List<Fixture.Row> expect = new ArrayList<>();
    List<Fixture.Row> late = new ArrayList<>();
    if (target.isPresent()) {
      SourceDeclaration source = target.get().source;
      Map<String, ColumnType> outputs = target.get().outputs;
      readGiven(root, source, given);
      for (YamlMap row : root.mapList("expect", i -> "expect row " + i,
          "- { op: insert, " + String.join(": ..., ", outputs.keySet()) + ": ... }")) {
        expectRow(row, modelName.get(), outputs).ifPresent(expect::add);
      }
      for (YamlMap row : root.mapList("late", i -> "late row " + i,
          "- { " + String.join(": ..., ", source.schema().keySet()) + ": ... }")) {
        typedRow(row, source.schema(), "a column of source '" + source.name() + "'")
            .ifPresent(v -> late.add(Fixture.Row.of(row.line(), v)));
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidProjectException(problems);
    }
    return Fixture.create(name, file, modelName.get(), given, expect, late);
  }

  private static Map<String, ColumnType> outputsOf(ModelDeclaration model, SourceDeclaration source) {
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
      Optional<Integer> partition = item.typedScalar("partition", "partition: 0").flatMap(p -> {
        if (p.getValue() instanceof Long && (Long) p.getValue() >= 0 && (Long) p.getValue() < 1 << 16) {
          return Optional.of(((Long) p.getValue()).intValue());
        }
        item.report("partition", "'" + p.getKey() + "' is not a partition number",
            "write a whole number from 0, e.g. partition: 1");
        return Optional.empty();
      });
      boolean isEvent = item.has("event");
      if (isEvent == item.has("watermark")) {
        item.reportHere(isEvent ? "has both event: and watermark:" : "has neither event: nor watermark:",
            "write one item per line: " + GIVEN_EXAMPLE);
        continue;
      }
      if (isEvent) {
        events++;
        int number = events;
        Optional<YamlMap> values = item.map("event", Optional.of("event " + number),
            "event: { column: value, ... }");
        values.flatMap(v -> typedRow(v, source.schema(), "a column of source '" + source.name() + "'"))
            .ifPresent(v -> given.add(Fixture.Given.event(item.line(), partition.orElse(0), number, v)));
      } else {
        item.typedScalar("watermark", "watermark: \"" + Timestamps.EXAMPLE + "\"").ifPresent(w -> {
          try {
            Instant at = Timestamps.parse(w.getValue());
            given.add(Fixture.Given.watermark(item.line(), partition, at));
          } catch (IllegalArgumentException e) {
            item.report("watermark", e.getMessage(), "write watermark: \"" + Timestamps.EXAMPLE + "\"");
          }
        });
      }
    }
  }

  private Optional<Fixture.Row> expectRow(
      YamlMap row, String model, Map<String, ColumnType> outputs) {
    Map<String, ColumnType> columns = new LinkedHashMap<>();
    columns.put("op", ColumnType.STRING);
    columns.putAll(outputs);
    Optional<Map<String, Object>> values = typedRow(row, columns, "an output column of model '"
        + model + "' or op");
    if (values.isEmpty()) {
      return Optional.empty();
    }
    Object op = values.get().get("op");
    if (!"insert".equals(op) && !"update".equals(op)) {
      row.report("op", op == null ? "is missing" : "'" + op + "' is not insert or update",
          "write op: insert (first record of a key) or op: update");
      return Optional.empty();
    }
    List<String> missing = outputs.keySet().stream()
        .filter(c -> !row.has(c)).collect(Collectors.toList());
    if (!missing.isEmpty()) {
      row.reportHere("does not give " + missing.stream().map(c -> "`" + c + "`")
              .collect(Collectors.joining(", ")),
          "list every output column of the model: op, " + String.join(", ", outputs.keySet()));
      return Optional.empty();
    }
    return Optional.of(Fixture.Row.of(row.line(), values.get()));
  }

  /** The row's values typed by {@code columns}; unknown columns and bad values are problems. */
  private Optional<Map<String, Object>> typedRow(
      YamlMap row, Map<String, ColumnType> columns, String what) {
    row.allowOnly(columns.keySet());
    Map<String, Object> values = new LinkedHashMap<>();
    boolean ok = true;
    for (String key : row.keys()) {
      ColumnType type = columns.get(key);
      if (type == null) {
        ok = false;
        continue;
      }
      Optional<Map.Entry<String, Object>> raw = row.typedScalar(key, key + ": <" + type + ">");
      if (raw.isEmpty()) {
        ok = false;
        continue;
      }
      try {
        values.put(key, ColumnValues.convert(type, raw.get().getValue()));
      } catch (IllegalArgumentException e) {
        row.report(key, e.getMessage(), "give " + what + " of type " + type);
        ok = false;
      }
    }
    return ok ? Optional.of(values) : Optional.empty();
  }
}
