package dev.streamform.cli;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Why a job did not start or failed, in one line: Beam's Flink runner wraps whatever went wrong
 * (the cluster refusing the job, the JobManager running out of memory, the job failing) in {@code
 * RuntimeException("Pipeline execution failed")}, so the wrapper alone tells an operator nothing.
 * The line names each cause down the chain, the innermost last.
 */
final class JobFailure {

  private static final int MAX_CAUSES = 6;

  private JobFailure() {}

  /**
   * The causes of {@code e}, outermost first, as {@code Type: first line of the message}, joined by
   * {@code " <- "}; a wrapper that only repeats its cause (the default message of {@code new
   * X(cause)}) is left out, and so is a repeated line.
   */
  static String causes(Throwable e) {
    List<String> parts = new ArrayList<>();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = e; t != null && seen.put(t, true) == null; t = t.getCause()) {
      String message = t.getMessage();
      if (message != null && t.getCause() != null && message.equals(t.getCause().toString())) {
        continue; // new X(cause): says nothing of its own
      }
      String line =
          t.getClass().getSimpleName() + (message == null ? "" : ": " + firstLine(message));
      if (!parts.contains(line)) {
        parts.add(line);
      }
    }
    if (parts.size() > MAX_CAUSES) {
      List<String> kept = new ArrayList<>(parts.subList(0, 2));
      kept.add("…");
      kept.addAll(parts.subList(parts.size() - (MAX_CAUSES - 2), parts.size()));
      parts = kept;
    }
    return String.join(" <- ", parts);
  }

  private static String firstLine(String message) {
    int eol = message.indexOf('\n');
    return (eol < 0 ? message : message.substring(0, eol)).strip();
  }
}
