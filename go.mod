module github.com/aisdkgo/ai

go 1.26
