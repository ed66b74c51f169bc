package kiosk.loadtest;

import static io.gatling.javaapi.core.CoreDsl.csv;
import static io.gatling.javaapi.http.HttpDsl.http;

import io.gatling.javaapi.core.FeederBuilder;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.nio.file.Files;
import java.nio.file.Path;

/** What every simulation shares: the site's protocol and the feed of article URLs. */
final class Site {
  private Site() {}

  /** Headers a desktop browser sends for a page; the API calls set their own Accept. */
  static HttpProtocolBuilder protocol() {
    HttpProtocolBuilder protocol =
        http.baseUrl(Settings.baseUrl())
            .acceptHeader("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
            .acceptLanguageHeader("en-GB,en;q=0.9")
            .acceptEncodingHeader("gzip, deflate, br")
            .userAgentHeader(
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 KioskLoadTest")
            .upgradeInsecureRequestsHeader("1")
            // The default warm-up calls a host on the internet; the first requests warm up instead.
            .disableWarmUp();
    return Boolean.getBoolean("shareConnections") ? protocol.shareConnections() : protocol;
  }

  /**
   * The article URLs (CSV, one column "path"), read in order and started over at the end:
   * {@code -DurlFeed} is a file path, or a resource name on the test classpath.
   */
  static FeederBuilder<String> articleFeed() {
    String feed = Settings.string("urlFeed", "article-urls.csv");
    Path file = Path.of(feed).toAbsolutePath();
    boolean onClasspath = Site.class.getClassLoader().getResource(feed) != null;
    if (!Files.isRegularFile(file) && !onClasspath) {
      throw new IllegalArgumentException(
          "no URL feed at " + feed + ": run `npm run loadtest:urls` (or pass -DurlFeed=FILE.csv)");
    }
    return csv(Files.isRegularFile(file) ? file.toString() : feed).circular();
  }
}
