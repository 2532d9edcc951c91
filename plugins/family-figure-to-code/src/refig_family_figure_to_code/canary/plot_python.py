import matplotlib.pyplot as plt

fig, ax = plt.subplots()
ax.plot([0, 1, 2, 3, 4], [1, 3, 2, 5, 4], marker="o", label="measured")
ax.bar([0.5, 1.5, 2.5, 3.5], [2, 1, 3, 2], width=0.4, alpha=0.5, label="counts")
ax.set_title("Golden canary: matplotlib")
ax.set_xlabel("step")
ax.set_ylabel("value")
ax.legend()
