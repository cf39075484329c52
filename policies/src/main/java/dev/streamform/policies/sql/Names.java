package dev.streamform.policies.sql;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** Column-name helpers for messages: close-name suggestions and quoting. */
final class Names {
  private Names() {}

  /**
   * "did you mean `amount`?" when some known names are close to {@code name} (same spelling in
   * another case, or a small edit distance); otherwise lists the known columns.
   */
  static String suggestion(String name, Collection<String> known) {
    List<String> close = closeNames(name, known);
    if (!close.isEmpty()) {
      return "did you mean "
          + close.stream()
              .map(
                  n ->
                      "`"
                          + n
                          + "`"
                          + dev.streamform.policies.schema.InvisibleCharacters.describe(n)
                              .map(d -> " (it " + d + ")")
                              .orElse(""))
              .collect(Collectors.joining(" or "))
          + "?";
    }
    if (known.isEmpty()) {
      return "the source declares no columns";
    }
    return "the source's columns are "
        + known.stream().map(n -> "`" + n + "`").collect(Collectors.joining(", "));
  }

  /** Up to three known names close to {@code name}, closest first. */
  static List<String> closeNames(String name, Collection<String> known) {
    String lower = name.toLowerCase(Locale.ROOT);
    List<String> close = new ArrayList<>();
    for (String k : known) {
      String kl = k.toLowerCase(Locale.ROOT);
      int limit = Math.max(1, Math.min(3, Math.max(name.length(), k.length()) / 3));
      if (kl.equals(lower)
          || distance(lower, kl) <= limit
          || kl.length() >= 3
              && lower.length() >= 3
              && (kl.contains(lower) || lower.contains(kl))) {
        close.add(k);
      }
    }
    close.sort(
        Comparator.comparingInt((String k) -> distance(lower, k.toLowerCase(Locale.ROOT)))
            .thenComparingInt(k -> distance(name, k))
            .thenComparing(Comparator.naturalOrder()));
    return close.size() > 3 ? close.subList(0, 3) : close;
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /** The name as a SQL identifier: bare when it is a plain identifier, double-quoted otherwise. */
  static String quoteIfNeeded(String name) {
    boolean plain =
        !name.isEmpty() && (Character.isLetter(name.charAt(0)) || name.charAt(0) == '_');
    for (int i = 0; plain && i < name.length(); i++) {
      char c = name.charAt(i);
      plain = Character.isLetterOrDigit(c) || c == '_';
    }
    if (plain && !ModelSql.isReservedWord(name)) {
      return name;
    }
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }
}
