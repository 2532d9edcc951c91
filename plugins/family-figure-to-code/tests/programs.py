"""Programs in all four languages that the execution and metric tests run: one per verdict."""

from __future__ import annotations

REFERENCE = {
    "python": "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9], 'r-')\n"
              "plt.title('Growth')\n",
    "r": "library(ggplot2)\ndf <- data.frame(x = 1:3, y = c(1, 4, 9))\n"
         "ggplot(df, aes(x, y)) + geom_line(colour = 'red') + ggtitle('Growth')\n",
    "matlab": "x = [1 2 3];\nfigure;\nplot(x, x.^2, 'r-');\ntitle('Growth');\n",
    "latex": "\\documentclass[tikz]{standalone}\n\\usepackage{pgfplots}\n"
             "\\pgfplotsset{compat=1.18}\n\\begin{document}\n\\begin{tikzpicture}\n"
             "\\begin{axis}[title=Growth]\n\\addplot[red] coordinates {(1,1) (2,4) (3,9)};\n"
             "\\end{axis}\n\\end{tikzpicture}\n\\end{document}\n",
}

SYNTAX_ERROR = {
    "python": "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3]\n",
    "r": "x <- c(1, 2\nplot(x))\n",
    "matlab": "x = [1 2 3;\nplot(x)\n",
    "latex": "\\documentclass{standalone}\n\\begin{document}\n\\begin{tikzpicture}\n"
             "\\draw (0,0) -- (1,1);\n\\end{document}\n",
}

RUNTIME_ERROR = {
    "python": "import matplotlib.pyplot as plt\nplt.plot(undefined_name)\n",
    "r": "plot(undefined_name)\n",
    "matlab": "plot(undefined_name);\n",
    "latex": "\\documentclass{standalone}\n\\usepackage{pgfplots}\n\\begin{document}\n"
             "\\begin{tikzpicture}\\begin{axis}\\addplot table {missing.dat};\\end{axis}"
             "\\end{tikzpicture}\n\\end{document}\n",
}

LOOP_FOREVER = {
    "python": "while True:\n    pass\n",
    "r": "repeat {}\n",
    "matlab": "while true\nend\n",
    "latex": "\\documentclass{standalone}\n\\def\\loop{\\loop}\n\\begin{document}\\loop"
             "\\end{document}\n",
}

NO_IMAGE = {
    "python": "print('nothing drawn')\n",
    "r": "x <- 1 + 1\n",
    "matlab": "x = 1 + 1;\n",
}
