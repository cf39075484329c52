package dev.streamform.policies.project;

import java.util.Collection;
import java.util.Optional;

/** Spelling suggestions for misspelt keys, columns and names. */
final class Names {
  private Names() {}

  /** The candidate closest to {@code name} by edit distance, if it is close enough to be a typo. */
  static Optional<String> closest(String name, Collection<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int d = distance(name.toLowerCase(), candidate.toLowerCase());
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    int allowed = Math.max(2, (name.length() + 2) / 3);
    return bestDistance <= allowed ? Optional.ofNullable(best) : Optional.empty();
  }

  /** The candidate nearest to {@code name} by edit distance, however far (ties: the first). */
  static String nearest(String name, Collection<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int d = distance(name.toLowerCase(), candidate.toLowerCase());
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    return best;
  }

  /**
   * True for a name usable in SQL and as a file name: letters, digits and _, not starting with a
   * digit.
   */
  static boolean isIdentifier(String name) {
    return name.matches("[A-Za-z_][A-Za-z0-9_]*");
  }

  /** Kafka's own rule for a topic name (which the file runs also use as a file name). */
  private static final java.util.regex.Pattern TOPIC =
      java.util.regex.Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  /**
   * Why {@code name} is not a legal Kafka topic name, or empty: 1 to 249 of letters, digits, '.',
   * '_' and '-', and not {@code .} or {@code ..}. So a topic never names a path: {@code ../x}, a
   * '/' or an absolute path cannot leave the folder that {@code streamform run --output} names.
   */
  static Optional<String> topicProblem(String name) {
    if (TOPIC.matcher(name).matches() && !name.equals(".") && !name.equals("..")) {
      return Optional.empty();
    }
    if (name.length() > 249) {
      return Optional.of(
          "is " + name.length() + " characters long, not a Kafka topic name (at most 249)");
    }
    return Optional.of(
        "'"
            + name
            + "' is not a Kafka topic name (letters, digits, '.', '_' and '-'"
            + (name.equals(".") || name.equals("..") ? ", other than . and .." : "")
            + ")");
  }

  /** The fix for a bad topic name under {@code key}. */
  static String topicFix(String key, String example) {
    return "write " + key + ": " + example + " — 1 to 249 letters, digits, '.', '_' or '-', no '/'";
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
