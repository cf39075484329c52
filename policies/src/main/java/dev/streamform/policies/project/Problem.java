package dev.streamform.policies.project;

import com.google.auto.value.AutoValue;
import java.util.Optional;

/**
 * One thing wrong with a project, said so a user can fix it: where (file and line), what it is
 * about (a source or model, a key), what is wrong, and how to fix it. {@link #toString()} is the
 * line {@code streamform check} prints, e.g.
 *
 * <pre>
 * sources.yml:9: source 'orders', key 'watermark': a watermark needs an event-time column — add event_time: &lt;timestamp column&gt; or remove watermark
 * </pre>
 */
@AutoValue
public abstract class Problem {

  /**
   * The file, relative to the project folder where it is inside it ({@code sources.yml}, {@code
   * models/x.sql}).
   */
  public abstract String file();

  /** 1-based line in {@link #file()}; 0 when the problem is about the whole file. */
  public abstract int line();

  /**
   * What the problem is about, e.g. {@code source 'orders'} or {@code model 'customer_metrics'}.
   */
  public abstract Optional<String> subject();

  /** The key at fault, e.g. {@code watermark} or {@code schema.amount}. */
  public abstract Optional<String> key();

  /** What is wrong. */
  public abstract String message();

  /** How to fix it. */
  public abstract Optional<String> fix();

  public static Problem of(
      String file,
      int line,
      Optional<String> subject,
      Optional<String> key,
      String message,
      Optional<String> fix) {
    return new AutoValue_Problem(file, line, subject, key, message, fix);
  }

  /** A problem with a whole file or folder. */
  public static Problem ofFile(String file, String message, String fix) {
    return of(file, 0, Optional.empty(), Optional.empty(), message, Optional.of(fix));
  }

  @Override
  public final String toString() {
    StringBuilder s = new StringBuilder(file());
    if (line() > 0) {
      s.append(':').append(line());
    }
    s.append(": ");
    subject().ifPresent(subject -> s.append(subject));
    key()
        .ifPresent(
            key ->
                s.append(subject().isPresent() ? ", " : "")
                    .append("key '")
                    .append(key)
                    .append('\''));
    if (subject().isPresent() || key().isPresent()) {
      s.append(": ");
    }
    s.append(message());
    fix().ifPresent(fix -> s.append(" — ").append(fix));
    return s.toString();
  }
}
