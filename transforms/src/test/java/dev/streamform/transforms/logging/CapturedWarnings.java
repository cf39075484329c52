package dev.streamform.transforms.logging;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J provider of this module's tests: keeps the warnings Streamform's own classes ({@code
 * dev.streamform.*}) log, so a test can read them, and drops everything else (the module's tests
 * had no provider before, so nothing was printed; nothing is printed now either).
 */
public final class CapturedWarnings implements SLF4JServiceProvider {
  private static final List<String> WARNINGS = new CopyOnWriteArrayList<>();

  /** The warnings logged so far, formatted, each prefixed by its logger's name and ": ". */
  public static List<String> all() {
    return List.copyOf(WARNINGS);
  }

  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new BasicMDCAdapter();
  private final ILoggerFactory factory = Captured::new;

  @Override
  public ILoggerFactory getLoggerFactory() {
    return factory;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {}

  private static final class Captured extends LegacyAbstractLogger {
    private final boolean ours;

    Captured(String name) {
      this.name = name;
      this.ours = name.startsWith("dev.streamform");
    }

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
        Level level, Marker marker, String pattern, Object[] arguments, Throwable throwable) {
      WARNINGS.add(name + ": " + MessageFormatter.basicArrayFormat(pattern, arguments));
    }

    @Override
    public boolean isTraceEnabled() {
      return false;
    }

    @Override
    public boolean isDebugEnabled() {
      return false;
    }

    @Override
    public boolean isInfoEnabled() {
      return false;
    }

    @Override
    public boolean isWarnEnabled() {
      return ours;
    }

    @Override
    public boolean isErrorEnabled() {
      return ours;
    }
  }
}
