package dev.streamform.endtoend;

import com.fasterxml.jackson.databind.JsonNode;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.schema.ColumnValues;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Changelog records read back from a topic and a fixture's {@code expect:} rows, in one comparable
 * form: sorted columns, numbers by {@link ColumnValues#show}, instants in the fixtures' spelling.
 */
final class ChangelogRows {
  private ChangelogRows() {}

  /** The values of changelog records (as {@code consume} reads them), without the causing event. */
  static List<Map<String, Object>> rows(List<JsonNode> changelog) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (JsonNode r : changelog) {
      Map<String, Object> row = new LinkedHashMap<>();
      r.get("value")
          .fields()
          .forEachRemaining(
              f -> {
                if (!f.getKey().equals("__event")) {
                  row.put(
                      f.getKey(),
                      f.getValue().isNumber()
                          ? f.getValue().decimalValue()
                          : f.getValue().asText());
                }
              });
      out.add(normalized(row));
    }
    return out;
  }

  /** A fixture's rows in the same form. */
  static List<Map<String, Object>> expected(List<Fixture.Row> rows) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Fixture.Row r : rows) {
      Map<String, Object> row = new LinkedHashMap<>();
      r.values()
          .forEach(
              (k, v) ->
                  row.put(
                      k,
                      v instanceof java.time.Instant
                          ? dev.streamform.policies.time.Timestamps.format((java.time.Instant) v)
                          : v));
      out.add(normalized(row));
    }
    return out;
  }

  static <K> Map<K, Object> normalized(Map<K, ?> row) {
    Map<K, Object> out = new TreeMap<>();
    row.forEach(
        (k, v) ->
            out.put(
                k,
                v instanceof Number
                    ? ColumnValues.show(new BigDecimal(v.toString()))
                    : String.valueOf(v)));
    return out;
  }

  /** Rows per customer, in the order they were written (one key lives on one partition). */
  static Map<String, List<Map<String, Object>>> byKey(List<Map<String, Object>> rows) {
    Map<String, List<Map<String, Object>>> out = new TreeMap<>();
    rows.forEach(
        r ->
            out.computeIfAbsent(String.valueOf(r.get("customer_id")), k -> new ArrayList<>())
                .add(r));
    return out;
  }
}
