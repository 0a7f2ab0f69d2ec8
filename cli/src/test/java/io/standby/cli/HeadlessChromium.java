package io.standby.cli;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's {@code chromium}, headless, driven through Debian's own {@code chromedriver}. Both paths are given to
 * Selenium, so Selenium Manager never looks for, or downloads, a browser or a driver.
 */
final class HeadlessChromium implements AutoCloseable {

    static final Path BROWSER = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");

    private final ChromeDriver driver;

    private HeadlessChromium(ChromeDriver driver) {
        this.driver = driver;
    }

    /** Skips the calling test, naming the packages to install, where the browser or its driver is missing. */
    static void assumeInstalled() {
        assumeTrue(Files.isExecutable(BROWSER), "no " + BROWSER + ": apt-get install chromium chromium-driver");
        assumeTrue(Files.isExecutable(DRIVER), "no " + DRIVER + ": apt-get install chromium chromium-driver");
    }

    /** Starts a browser with a fresh profile under {@code dir}; chromedriver's log goes there too. */
    static HeadlessChromium start(Path dir) throws IOException {
        Path profile = Files.createDirectories(dir.resolve("chromium-profile"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort()
                .withLogFile(dir.resolve("chromedriver.log").toFile())
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(BROWSER.toFile());
        // Root needs --no-sandbox; the rest keep the browser from calling home (updates, sync, QUIC probes). Even so
        // it looks up accounts.google.com, update.googleapis.com and its search engine: no name but 127.0.0.1 resolves.
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                "--window-size=1440,900",
                "--user-data-dir=" + profile);
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60)).scriptTimeout(Duration.ofSeconds(30));
        return new HeadlessChromium(driver);
    }

    void open(String url) {
        driver.get(url);
    }

    /**
     * Runs {@code script} in the page, as a function body: {@code return} gives its value; {@code arguments[i]} are
     * {@code args}.
     */
    Object script(String script, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(script, args);
    }

    void screenshot(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
    }

    @Override
    public void close() {
        driver.quit();
    }
}
