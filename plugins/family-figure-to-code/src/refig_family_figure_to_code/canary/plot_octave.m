x = 0:0.5:6;
plot(x, sin(x), "-o", x, cos(x), "--");
title("Golden canary: Octave");
xlabel("x");
ylabel("value");
legend("sin", "cos");
