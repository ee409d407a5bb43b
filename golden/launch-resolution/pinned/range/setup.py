from setuptools import find_packages, setup

REQUIRES = [
    "torch>=2.4",
    "verl>=0.4.0,<0.6",
]

setup(
    name="myproject",
    packages=find_packages(),
    install_requires=REQUIRES,
    extras_require={"latest": ["verl==0.9.1"]},
)
