# installed package config: see issue 3
