package dev.streamform.policies.plan;

import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.digest.DeclarationDigest;
import dev.streamform.policies.project.Project;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.sql.ModelQuery;
import dev.streamform.policies.sql.ModelSql;
import dev.streamform.policies.sql.OutputColumn;
import dev.streamform.policies.sql.SqlModelException;
import dev.streamform.policies.time.Durations;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The plan of a model as {@code streamform explain} shows it: the Source with its clock, a Filter
 * for the WHERE clause, and the Aggregate with its state fingerprint. Every node that carries the
 * event-time attribute says so; the fingerprint names the key, each accumulator with its type and
 * the retention, so a change to any of them shows.
 */
public final class Plan {
  private final List<List<String>> nodes;

  private Plan(List<List<String>> nodes) {
    this.nodes = nodes;
  }

  /** The plan of {@code modelName} in a loaded (hence valid) project. */
  public static Plan of(Project project, String modelName) {
    ModelDeclaration model = project.models().get(modelName);
    if (model == null) {
      throw new IllegalArgumentException(
          "no model named '" + modelName + "' in streamform.yml; models: "
              + String.join(", ", project.models().keySet()));
    }
    SourceDeclaration source = project.sourceOf(model);
    ModelQuery query;
    try {
      query = ModelSql.parse(model.sql());
    } catch (SqlModelException e) {
      throw new IllegalStateException("model " + modelName + " was checked on load", e);
    }
    List<List<String>> nodes = new ArrayList<>();
    nodes.add(List.of(
        "Source",
        "name=" + source.name(),
        "connector=" + source.connector().name().toLowerCase(Locale.ROOT)
            + source.topic().map(t -> " topic=" + t).orElse("")
            + source.path().map(p -> " path=" + p).orElse(""),
        "time=" + clock(source),
        "digest=" + DeclarationDigest.of(source).substring(0, 12)));
    String timeAttribute = source.eventTime().map(c -> "time attribute=" + c).orElse(null);
    query.where().ifPresent(w -> {
      List<String> filter = new ArrayList<>(List.of("Filter", "predicate=" + w.toSql()));
      if (timeAttribute != null) {
        filter.add(timeAttribute);
      }
      nodes.add(filter);
    });
    Map<String, ColumnType> outputs = query.outputColumns(source.schema());
    List<OutputColumn> aggregates = query.outputs().stream()
        .filter(c -> c.kind() == OutputColumn.Kind.AGGREGATE)
        .collect(Collectors.toList());
    String key = String.join(",", model.key());
    String accumulators = aggregates.stream()
        .map(a -> call(a) + ": " + outputs.get(a.name()))
        .collect(Collectors.joining(", "));
    nodes.add(List.of(
        "Aggregate",
        "key=" + key,
        "aggregates=" + aggregates.stream().map(Plan::call).collect(Collectors.joining(", ")),
        "fingerprint=aggregate key=[" + key + "] accumulators=[" + accumulators + "] retention="
            + model.retention().map(Durations::format).orElse("unbounded"),
        "materialized=" + model.materialized().name().toLowerCase(Locale.ROOT)
            + " (insert/update changelog)"));
    return new Plan(nodes);
  }

  private static String clock(SourceDeclaration source) {
    if (!source.hasEventTime()) {
      return "processing (arrival order, no lateness, no expiry)";
    }
    return "event(" + source.eventTime().get() + ") watermark=" + Durations.format(source.watermark())
        + " late=" + source.lateEvents().yamlName()
        + source.idleAfter().map(i -> " idle_after=" + Durations.format(i)).orElse("");
  }

  private static String call(OutputColumn c) {
    return c.function().get().name().toLowerCase(Locale.ROOT) + "(" + c.argument().orElse("*") + ")";
  }

  /** The plan as text, nodes joined by arrows, ending with a newline. */
  public String render() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < nodes.size(); i++) {
      if (i > 0) {
        b.append("     ↓\n");
      }
      List<String> node = nodes.get(i);
      b.append(node.get(0)).append('\n');
      node.subList(1, node.size()).forEach(line -> b.append("  ").append(line).append('\n'));
    }
    return b.toString();
  }
}
