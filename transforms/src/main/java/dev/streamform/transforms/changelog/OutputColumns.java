package dev.streamform.transforms.changelog;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The checks a keyed aggregate's key columns and aggregates get when the transform is built, shared
 * by {@link KeyedChangelog} and {@link dev.streamform.transforms.windows.WindowedAggregate} so both
 * refuse the same mistakes with the same words: no key column, a null or blank one, one named
 * twice; a null aggregate, two aggregates with one output name (default names included), an
 * aggregate named like a key column or like another column the transform adds. (The windows check
 * aggregates against their keys when applied, as a key may still be renamed there.) Every message
 * starts with the call as the author wrote it and ends with the fix.
 */
public final class OutputColumns {
  private OutputColumns() {}

  /**
   * {@code keyColumns}, checked and copied.
   *
   * @param call the call as written, without its arguments: {@code KeyedChangelog.by}
   * @param what what needs the key, for the message: {@code a changelog}
   * @throws IllegalArgumentException if no key column is given, one is null or blank, or one is
   *     named twice
   */
  public static List<String> keyColumns(String call, String what, List<String> keyColumns) {
    String example = call + "(\"customer_id\")";
    if (keyColumns == null || keyColumns.isEmpty()) {
      throw new IllegalArgumentException(
          call
              + "("
              + (keyColumns == null ? "null" : "")
              + "): "
              + what
              + " needs at least one key column, e.g. "
              + example);
    }
    Set<String> seen = new HashSet<>();
    for (String k : keyColumns) {
      if (k == null || k.isBlank()) {
        throw new IllegalArgumentException(
            call
                + "("
                + describe(keyColumns)
                + "): a key column is "
                + (k == null ? "null" : "blank")
                + "; name columns of the records, e.g. "
                + example);
      }
      if (!seen.add(k)) {
        throw new IllegalArgumentException(
            call
                + "("
                + describe(keyColumns)
                + "): key column `"
                + k
                + "` is named twice; name each key column once");
      }
    }
    return List.copyOf(keyColumns);
  }

  /**
   * {@code existing} with {@code more} added, in output order, each checked.
   *
   * @param where the call as written, for the message: {@code KeyedChangelog.by("k").aggregating}
   * @param keyColumns the key columns, which are output columns too
   * @param reserved other names the transform's output already has (a window's {@code
   *     window_start}), or none
   * @throws IllegalArgumentException if {@code more} or an aggregate in it is null, two aggregates
   *     share an output name, or an aggregate is named like a key column or a reserved name
   */
  public static List<Aggregation> aggregates(
      String where,
      Collection<String> keyColumns,
      Collection<String> reserved,
      List<Aggregation> existing,
      List<Aggregation> more) {
    if (more == null) {
      throw new IllegalArgumentException(
          where
              + "(null): give the aggregates, e.g."
              + " .aggregating(Aggregation.sum(\"amount\").as(\"total_spend\"))");
    }
    List<Aggregation> all = new ArrayList<>(existing);
    for (Aggregation a : more) {
      if (a == null) {
        throw new IllegalArgumentException(
            where
                + ": an aggregate is null; give each one, e.g."
                + " Aggregation.sum(\"amount\").as(\"total_spend\")");
      }
      checkAgainstKeys(where, keyColumns, a);
      if (reserved.contains(a.name())) {
        throw new IllegalArgumentException(
            where
                + ": aggregate "
                + a
                + " is named like the column `"
                + a.name()
                + "` every output row already has; every output column needs its own name —"
                + " rename it with .as(...)");
      }
      for (Aggregation b : all) {
        if (b.name().equals(a.name())) {
          throw new IllegalArgumentException(
              where
                  + ": two aggregates are named `"
                  + a.name()
                  + "` ("
                  + b
                  + ", "
                  + a
                  + "); every output column needs its own name — rename one with .as(...)");
        }
      }
      all.add(a);
    }
    return List.copyOf(all);
  }

  /** Refuses {@code aggregate} if it is named like one of {@code keyColumns}. */
  private static void checkAgainstKeys(
      String where, Collection<String> keyColumns, Aggregation aggregate) {
    if (keyColumns.contains(aggregate.name())) {
      throw new IllegalArgumentException(
          where
              + ": aggregate "
              + aggregate
              + " is named like the key column `"
              + aggregate.name()
              + "`; every output column needs its own name — rename it with .as(...)");
    }
  }

  /** Key columns as the author wrote them: {@code "a", "b"}. */
  public static String describe(List<String> keyColumns) {
    List<String> quoted = new ArrayList<>();
    for (String k : keyColumns) {
      quoted.add(k == null ? "null" : "\"" + k + "\"");
    }
    return String.join(", ", quoted);
  }

  /**
   * Aggregates as a declaration reads them, for display data: {@code sum(amount) as revenue,
   * count(*) as orders}, or {@code none}.
   */
  public static String display(List<Aggregation> aggregations) {
    if (aggregations.isEmpty()) {
      return "none";
    }
    List<String> shown = new ArrayList<>();
    aggregations.forEach(a -> shown.add(a.toString()));
    return String.join(", ", shown);
  }
}
