package dev.streamform.policies.project;

import dev.streamform.policies.declarations.Materialization;
import dev.streamform.policies.declarations.ModelDeclaration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Reads and checks {@code streamform.yml}: the rules of a model's declaration on its own. */
final class ModelsFile {
  static final String NAME = "streamform.yml";

  static final List<String> KEYS =
      List.of("materialized", "key", "retention", "window", "allowed_lateness", "topic",
          "late_topic", "quarantine_topic");

  private ModelsFile() {}

  /**
   * One declared model, before its query is read.
   *
   * @param yaml the model's mapping, to report problems found later at the right line
   * @param declaration the declaration so far (no query yet); present when it has no problem
   * @param key the key columns, when they could be read
   */
  record Entry(
      String name,
      YamlMap yaml,
      Optional<ModelDeclaration.Builder> declaration,
      Optional<List<String>> key) {}

  /**
   * Every model declared in {@code text}, in file order; problems go to {@code problems}. Empty
   * when the file is not even a {@code models:} map, so checks that depend on it are skipped.
   */
  static Optional<Map<String, Entry>> read(String text, List<Problem> problems) {
    Map<String, Entry> models = new LinkedHashMap<>();
    Optional<YamlMap> top =
        YamlMap.parseFile(NAME, text, "models: followed by one model per name", problems);
    if (top.isEmpty()) {
      return Optional.empty();
    }
    top.get().allowOnly(List.of("models"));
    if (!top.get().has("models")) {
      top.get().reportMissing("models", "start the file with models: and one model per name");
      return Optional.empty();
    }
    Optional<YamlMap> all =
        top.get().map("models", Optional.empty(), "models: followed by one model per name");
    if (all.isEmpty()) {
      return Optional.empty();
    }
    for (String name : all.get().keys()) {
      int before = problems.size();
      if (!Names.isIdentifier(name)) {
        all.get().report(name, "'" + name + "' is not a usable model name (it names models/" + name + ".sql)",
            "use letters, digits and _ (starting with a letter or _)");
      }
      all.get()
          .map(name, Optional.of("model '" + name + "'"), name + ": followed by its keys (materialized, key, ...)")
          .ifPresent(m -> models.put(name, read(name, m, before, problems)));
    }
    return Optional.of(models);
  }

  private static Entry read(String name, YamlMap m, int problemsBefore, List<Problem> problems) {
    m.allowOnly(KEYS);
    ModelDeclaration.Builder b = ModelDeclaration.builder().setName(name);
    m.choice("materialized", Materialization.class, "upsert").ifPresent(b::setMaterialized);

    String keyExample = "key: [customer_id]";
    Optional<List<String>> key = m.stringList("key", keyExample);
    if (!m.has("key")) {
      m.reportMissing("key", "add key: [<column>, ...] naming the columns the query groups by");
    }
    key.ifPresent(columns -> {
      Set<String> seen = new HashSet<>();
      for (String column : columns) {
        if (!seen.add(column)) {
          m.report("key", "names '" + column + "' twice", "list each key column once");
        }
      }
      if (columns.isEmpty()) {
        m.report("key", "is empty", "name the columns the query groups by, e.g. " + keyExample);
      } else {
        b.setKey(columns);
      }
    });

    m.duration("retention", "30d").ifPresent(b::setRetention);
    m.duration("window", "1h").ifPresent(window -> {
      if (window.isZero()) {
        m.report("window", "a window cannot be 0s long", "give the window's size, e.g. window: 1h");
      } else {
        b.setWindow(window);
      }
    });
    m.duration("allowed_lateness", "10m").ifPresent(b::setAllowedLateness);
    if (m.has("allowed_lateness") && !m.has("window")) {
      m.report("allowed_lateness", "allowed_lateness applies to windowed models only",
          "add window: <duration> or remove allowed_lateness");
    }
    m.string("topic", "topic: customer_metrics").ifPresent(b::setTopic);
    m.string("late_topic", "late_topic: orders_late").ifPresent(b::setLateTopic);
    m.string("quarantine_topic", "quarantine_topic: orders_quarantine").ifPresent(b::setQuarantineTopic);

    Optional<ModelDeclaration.Builder> declaration =
        problems.size() == problemsBefore ? Optional.of(b) : Optional.empty();
    return new Entry(name, m, declaration, key);
  }
}
