x <- 1:6
y <- c(2, 4, 3, 6, 5, 7)
plot(x, y, type = "b", pch = 19, col = "steelblue", main = "Golden canary: R",
     xlab = "step", ylab = "value")
abline(h = 4, lty = 2, col = "firebrick")
legend("topleft", legend = c("value", "threshold"), col = c("steelblue", "firebrick"), lty = c(1, 2))
